/** The sha256 constructor the AWS SDK's signer uses in Node (`@smithy/hash-node`), rebuilt on node:crypto, for tests that sign requests. */
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { SourceData } from '@smithy/types';

/** SHA-256, or HMAC-SHA-256 when constructed with a secret. */
export class NodeSha256 {
  private hash: Hash | Hmac;
  constructor(private readonly secret?: SourceData) {
    this.hash = this.fresh();
  }
  private fresh(): Hash | Hmac {
    if (this.secret === undefined) return createHash('sha256');
    const key = typeof this.secret === 'string' ? this.secret : Buffer.from(this.secret as ArrayBuffer);
    return createHmac('sha256', key);
  }
  update(data: Uint8Array): void {
    this.hash.update(data);
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.hash.digest());
  }
  reset(): void {
    this.hash = this.fresh();
  }
}
