import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';

describe('npm run dev (scripts/dev.mjs)', () => {
  it("exits 1 and names SPOTLIGHT_PORT when Spotlight's port is taken, rather than end quietly with no app", async () => {
    const holder = createServer();
    holder.listen(0);
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    try {
      const dev = spawn(process.execPath, ['scripts/dev.mjs', '--port', '1'], {
        env: { ...process.env, SPOTLIGHT_PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      dev.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      const [code] = await once(dev, 'exit');
      expect(code).toBe(1);
      expect(stderr).toContain(`port ${port}`);
      expect(stderr).toContain('SPOTLIGHT_PORT');
    } finally {
      holder.close();
    }
  }, 30_000);
});
