/**
 * Credentials are made only by a start that succeeds: a first start that fails after generating them (here the
 * edge's port, taken after any check could see it free: the library has no address check) removes the generated
 * admin user and the files it wrote, so the next start, the first that succeeds, generates and reports them.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { startStratus } from '../../src/main.js';
import { silentLogger } from '../../src/shared/logger.js';

let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-failed-start-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

describe('a first start that fails', () => {
  it('leaves no credentials, and the next start generates and reports them', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const edgePort = (taken.address() as net.AddressInfo).port;
    const dataDir = path.join(dir, 'data');
    const flags = { 'data-dir': dataDir, http: '127.0.0.1:0', dns: '127.0.0.1:0', s3: '127.0.0.1:0', admin: 'off', 'dns-workers': '0', edge: `127.0.0.1:${edgePort}` };
    try {
      await expect(startStratus(loadConfig(flags, {}), silentLogger())).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
    for (const file of ['credentials.json', 's3-credentials.json', 'edge-secrets-key.json']) expect(fs.existsSync(path.join(dataDir, file)), file).toBe(false);

    const running = await startStratus(loadConfig(flags, {}), silentLogger());
    try {
      expect(running.generatedCredentials).toBeDefined();
      expect(running.generatedS3Credentials).toBeDefined();
      const saved = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { email: string; key: string };
      expect(saved.key).toBe(running.generatedCredentials!.key);
      const accounts = await fetch(`${running.httpUrl}/client/v4/accounts`, { headers: { 'x-auth-email': saved.email, 'x-auth-key': saved.key } });
      const body = await accounts.json() as { success: boolean; result: unknown[] };
      expect(body.success).toBe(true);
      expect(body.result).toHaveLength(1);
    } finally {
      await running.close();
    }
  });
});
