import dgram from 'node:dgram';
import net from 'node:net';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findTsig, ResponseSigner, ResponseVerifier, signRequest, TSIG_ALGORITHMS, TSIG_ERROR, tsigErrorResponse, verifyRequest, type TsigKey,
} from './tsig.js';
import { decodeMessage, encodeMessage, type WireRecord } from './wire/message.js';
import { Writer } from './wire/writer.js';
import { RCODE, TYPE } from './wire/constants.js';

const run = promisify(execFile);
const SECRET = Buffer.from('stratus-tsig-test-secret-0123456789');
const keyOf = (algorithm: string, name = 'xfer-key'): TsigKey => ({ name, algorithm, secret: SECRET });

function query(id: number, name: string, type: number): Buffer {
  const w = new Writer(512);
  encodeMessage(w, { id, qr: false, opcode: 0, aa: false, rd: false, rcode: 0, question: { name, type, klass: 1 }, answers: [], authorities: [], additionals: [] });
  return w.result();
}

function txt(name: string, text: string): WireRecord {
  return { name, type: TYPE.TXT, ttl: 60, rdata: [Buffer.concat([Buffer.from([text.length]), Buffer.from(text)])] };
}

function reply(q: Buffer, answers: WireRecord[], rcode = 0, withQuestion = true): Buffer {
  const m = decodeMessage(q);
  const w = new Writer(4096);
  encodeMessage(w, { id: m.id, qr: true, opcode: 0, aa: true, rd: false, rcode, question: withQuestion ? m.questions[0] : undefined, answers, authorities: [], additionals: [] });
  return w.result();
}

describe('TSIG in memory', () => {
  for (const algorithm of Object.keys(TSIG_ALGORITHMS)) {
    it(`signs and verifies a request and a 3-message response with ${algorithm}`, () => {
      const key = keyOf(algorithm);
      const req = signRequest(query(7, 'example.test', TYPE.AXFR), key);
      expect(findTsig(req.message)?.keyName).toBe('xfer-key');
      const check = verifyRequest(req.message, (n) => (n === 'xfer-key' ? key : undefined));
      expect(check.status).toBe('ok');
      if (check.status !== 'ok') return;
      const q = query(7, 'example.test', TYPE.AXFR);
      const msgs = [0, 1, 2].map((i) => check.signer.sign(reply(q, [txt('example.test', `part ${i}`)], 0, i === 0)));
      const verifier = new ResponseVerifier(key, req.mac);
      expect(msgs.map((m) => verifier.check(m))).toEqual(['signed', 'signed', 'signed']);
      expect(verifier.settled).toBe(true);
    });
  }

  it('lets unsigned messages through between signed ones and catches a changed one', () => {
    const key = keyOf('hmac-sha256');
    const req = signRequest(query(9, 'example.test', TYPE.AXFR), key);
    const q = query(9, 'example.test', TYPE.AXFR);
    const check = verifyRequest(req.message, () => key);
    if (check.status !== 'ok') throw new Error('not ok');
    const first = check.signer.sign(reply(q, [txt('example.test', 'a')]));
    const middle = reply(q, [txt('example.test', 'b')], 0, false);
    // The signer folds nothing: sign the last one over the prior MAC plus the unsigned middle message by hand.
    const verifier = new ResponseVerifier(key, req.mac);
    expect(verifier.check(first)).toBe('signed');
    expect(verifier.check(middle)).toBe('unsigned');
    expect(verifier.settled).toBe(false);
    const tampered = Buffer.from(first);
    tampered[2] ^= 0x04; // the AA bit
    expect(new ResponseVerifier(key, req.mac).check(tampered)).toEqual({ error: TSIG_ERROR.BADSIG });
  });

  it('answers BADKEY, BADSIG and BADTIME', () => {
    const key = keyOf('hmac-sha256');
    const req = signRequest(query(1, 'example.test', TYPE.SOA), key);
    const badKey = verifyRequest(req.message, () => undefined);
    expect(badKey).toMatchObject({ status: 'error', error: TSIG_ERROR.BADKEY });
    const wrongAlg = verifyRequest(req.message, () => keyOf('hmac-sha512'));
    expect(wrongAlg).toMatchObject({ status: 'error', error: TSIG_ERROR.BADKEY });
    const badSig = verifyRequest(req.message, () => ({ ...key, secret: Buffer.from('other') }));
    expect(badSig).toMatchObject({ status: 'error', error: TSIG_ERROR.BADSIG });
    const old = signRequest(query(1, 'example.test', TYPE.SOA), key, { timeSigned: Math.floor(Date.now() / 1000) - 3600 });
    const badTime = verifyRequest(old.message, () => key);
    expect(badTime).toMatchObject({ status: 'error', error: TSIG_ERROR.BADTIME });
    if (badTime.status !== 'error') return;
    const now = Math.floor(Date.now() / 1000);
    const answer = tsigErrorResponse(reply(query(1, 'example.test', TYPE.SOA), [], RCODE.NOTAUTH), badTime, now);
    const rec = findTsig(answer)!;
    expect(rec.error).toBe(TSIG_ERROR.BADTIME);
    expect(rec.other.readUIntBE(0, 6)).toBe(now);
    expect(rec.timeSigned).toBe(findTsig(old.message)!.timeSigned);
    // Signed with the request's MAC: the client can check it (and sees BADTIME).
    expect(new ResponseVerifier(key, old.mac).check(answer)).toEqual({ error: TSIG_ERROR.BADTIME });
    if (badSig.status !== 'error') return;
    const sigAnswer = findTsig(tsigErrorResponse(reply(query(1, 'example.test', TYPE.SOA), [], RCODE.NOTAUTH), badSig))!;
    expect(sigAnswer).toMatchObject({ error: TSIG_ERROR.BADSIG, mac: Buffer.alloc(0) });
  });
});

/** A tiny server answering with this module only: TXT over UDP, three signed messages over TCP for AXFR. */
describe('TSIG against kdig and dig', () => {
  const key = keyOf('hmac-sha256', 'interop-key');
  const keys = new Map([['interop-key', key], ['md5-key', keyOf('hmac-md5.sig-alg.reg.int', 'md5-key')], ['sha1-key', keyOf('hmac-sha1', 'sha1-key')], ['sha512-key', keyOf('hmac-sha512', 'sha512-key')]]);
  let udp: dgram.Socket;
  let tcp: net.Server;
  let port = 0;

  const answer = (msg: Buffer): Buffer[] => {
    const check = verifyRequest(msg, (n) => keys.get(n));
    const q = decodeMessage(msg);
    const plain = Buffer.from(msg.subarray(0, check.status === 'unsigned' ? msg.length : findTsig(msg)!.offset));
    plain.writeUInt16BE(plain.readUInt16BE(10) - (check.status === 'unsigned' ? 0 : 1), 10);
    if (check.status === 'error') return [tsigErrorResponse(reply(plain, [], RCODE.NOTAUTH), check)];
    const name = q.questions[0]!.name;
    const soa: WireRecord = { name, type: TYPE.SOA, ttl: 60, rdata: [{ name: `ns.${name}` }, { name: `h.${name}` }, Buffer.from([0, 0, 0, 5, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0])] };
    const parts = q.questions[0]!.type === TYPE.AXFR ? [[soa, txt(name, 'one')], [txt(name, 'two')], [txt(name, 'three'), soa]] : [[txt(name, 'hello')]];
    const out = parts.map((p, i) => reply(plain, p, 0, i === 0));
    return check.status === 'ok' ? out.map((m) => check.signer.sign(m)) : out;
  };

  beforeAll(async () => {
    tcp = net.createServer((c) => {
      let buf = Buffer.alloc(0);
      c.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const m = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + m.length);
          for (const a of answer(m)) { const h = Buffer.alloc(2); h.writeUInt16BE(a.length); c.write(Buffer.concat([h, a])); }
        }
      });
      c.on('error', () => c.destroy());
    });
    // UDP takes a port from the kernel; TCP on the same number may be taken by another process: then another pair.
    for (;;) {
      udp = dgram.createSocket('udp4');
      await new Promise<void>((r) => udp.bind(0, '127.0.0.1', () => r()));
      port = udp.address().port;
      const listening = await new Promise<boolean>((r) => {
        const taken = () => r(false);
        tcp.once('error', taken);
        tcp.listen(port, '127.0.0.1', () => { tcp.off('error', taken); r(true); });
      });
      if (listening) break;
      udp.close();
    }
    udp.on('message', (m, rinfo) => { for (const a of answer(m)) udp.send(a, rinfo.port, rinfo.address); });
  });
  afterAll(async () => {
    udp.close();
    await new Promise((r) => tcp.close(r));
  });

  const b64 = SECRET.toString('base64');
  const kdig = (args: string[]) => run('kdig', ['@127.0.0.1', '-p', String(port), '+time=3', '+retry=0', ...args], { timeout: 15_000 }).then((r) => r.stdout + r.stderr, (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`);
  const dig = (args: string[]) => run('dig', ['@127.0.0.1', '-p', String(port), '+time=3', '+tries=1', '+nocookie', ...args], { timeout: 15_000 }).then((r) => r.stdout + r.stderr, (e: { stdout?: string; stderr?: string }) => `${e.stdout ?? ''}${e.stderr ?? ''}`);

  it('kdig verifies a signed UDP answer and a signed 3-message AXFR, for each algorithm', async () => {
    for (const [name, k] of keys) {
      const out = await kdig(['-y', `${k.algorithm.replace('.sig-alg.reg.int', '')}:${name}:${b64}`, 'example.test', 'TXT']);
      expect(out).toContain('"hello"');
      expect(out).not.toMatch(/failed|WARNING/i);
    }
    const axfr = await kdig(['-y', `hmac-sha256:interop-key:${b64}`, 'example.test', 'AXFR']);
    expect(axfr).toContain('"three"');
    expect(axfr).not.toMatch(/failed|WARNING/i);
  });

  it('dig verifies a signed answer and a signed 3-message AXFR', async () => {
    const out = await dig(['-y', `hmac-sha512:sha512-key:${b64}`, 'example.test', 'TXT']);
    expect(out).toContain('"hello"');
    expect(out).toMatch(/TSIG.*NOERROR/);
    const axfr = await dig(['-y', `hmac-sha256:interop-key:${b64}`, 'example.test', 'AXFR']);
    expect(axfr).toContain('"three"');
    expect(axfr).not.toMatch(/failed|could not be validated/i);
  });

  it('answers a wrong secret BADSIG, an unknown key BADKEY, as dig shows them', async () => {
    const bad = await dig(['-y', `hmac-sha256:interop-key:${Buffer.from('wrong secret here').toString('base64')}`, 'example.test', 'TXT']);
    expect(bad).toMatch(/NOTAUTH/);
    expect(bad).toMatch(/BADSIG/);
    const unknown = await dig(['-y', `hmac-sha256:nobody:${b64}`, 'example.test', 'TXT']);
    expect(unknown).toMatch(/NOTAUTH/);
    expect(unknown).toMatch(/BADKEY/);
  });
});
