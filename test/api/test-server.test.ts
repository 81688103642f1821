import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/server.js';

describe('startTestServer', () => {
  it('runs the real service on a free port and cleans up its data folder', async () => {
    const server = await startTestServer();
    try {
      expect(server.apiBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
      const res = await fetch(`${server.apiBase}/no-such-route`);
      const body = (await res.json()) as { success: boolean };
      expect(body.success).toBe(false);
      expect(fs.existsSync(server.dataDir)).toBe(true);
    } finally {
      await server.stop();
    }
    expect(fs.existsSync(server.dataDir)).toBe(false);
  });
});
