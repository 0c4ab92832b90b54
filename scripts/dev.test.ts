import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { type AddressInfo, connect, createServer } from 'node:net';

/**
 * `npm run dev` with Spotlight on `spotlightPort`, for a check that ends it before it starts
 * anything (or, were the check gone, ends it after 60 s at the latest).
 */
async function devRefusing(spotlightPort: string): Promise<{ code: number | null; output: string }> {
  return devUntilItEnds(['--port', String(await freePort())], {
    ...process.env,
    SPOTLIGHT_PORT: spotlightPort,
    NEXT_DIST_DIR: '.next-dev-port',
  });
}

/**
 * `npm run dev` in its own process group, so that whatever it started can be ended with it, and
 * what it printed so far.
 */
function devInItsOwnGroup(args: string[], env: NodeJS.ProcessEnv) {
  const dev = spawn(process.execPath, ['scripts/dev.mjs', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const printed = { output: '' };
  for (const stream of [dev.stdout, dev.stderr]) {
    stream.on('data', (chunk) => {
      printed.output += chunk;
    });
  }
  const endGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-(dev.pid ?? 0), signal);
    } catch {
      // every process of the group has ended
    }
  };
  return { dev, printed, endGroup };
}

/** `npm run dev` run to its end (at most 60 s, then its group is killed): its exit code and output. */
async function devUntilItEnds(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const { dev, printed, endGroup } = devInItsOwnGroup(args, env);
  const timeout = setTimeout(() => endGroup('SIGKILL'), 60_000);
  try {
    const [code] = await once(dev, 'exit');
    return { code, output: printed.output };
  } finally {
    clearTimeout(timeout);
    endGroup('SIGTERM');
  }
}

/** A port nothing listens on now at `host`; rejects where this machine has no such address. */
async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer().listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts connections on 127.0.0.1 at `port`. */
function isListening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitFor(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}

/** Whether this machine has IPv6's loopback address to listen on. */
const hasIpv6Loopback = await freePort('::1').then(
  () => true,
  () => false,
);

describe('npm run dev (scripts/dev.mjs)', () => {
  it("exits 1 and names SPOTLIGHT_PORT when Spotlight's port is taken, rather than end quietly with no app", async () => {
    const holder = createServer();
    holder.listen(0);
    await once(holder, 'listening');
    const { port } = holder.address() as AddressInfo;
    try {
      const { code, output } = await devRefusing(String(port));
      expect(code).toBe(1);
      expect(output).toContain(`port ${port}`);
      expect(output).toContain('SPOTLIGHT_PORT');
    } finally {
      holder.close();
    }
  }, 30_000);

  it.skipIf(!hasIpv6Loopback)(
    "exits 1 when Spotlight's port is taken on ::1 alone, where the browser may reach another server as localhost",
    async () => {
      // A port free on 127.0.0.1, held on ::1 alone.
      const port = await freePort();
      const holder = createServer();
      holder.listen(port, '::1');
      await once(holder, 'listening');
      try {
        const { code, output } = await devRefusing(String(port));
        expect(code).toBe(1);
        expect(output).toContain(
          `Something holds port ${port} at ::1, where the browser may reach it as localhost instead of Spotlight: stop what uses it, or set SPOTLIGHT_PORT to another port.`,
        );
        expect(output).not.toContain('Spotlight listening');
      } finally {
        holder.close();
      }
    },
    30_000,
  );

  // Next moves to the next free port only from its default one, 3000, with no PORT set.
  it('exits 1 when the default port is taken, saying so and naming PORT, rather than move the app to another port', async () => {
    const holder = createServer();
    // Held by another server that stays (a developer's own) serves as well. One that lets go of it
    // meanwhile (another job's on a shared machine) would leave the port free for the app, so the
    // test holds the port itself as soon as it can.
    for (const deadline = Date.now() + 10_000; ; ) {
      holder.listen(3000);
      try {
        await once(holder, 'listening');
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > deadline) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const { PORT: _port, ...env } = process.env;
    try {
      const { code, output } = await devUntilItEnds([], {
        ...env,
        SPOTLIGHT_PORT: String(await freePort()),
        NEXT_DIST_DIR: '.next-dev-port',
      });
      expect(output).not.toMatch(/using available port/);
      expect(code, output).toBe(1);
      // Said in a sentence that names the way out, before Spotlight or next dev start.
      expect(output).toContain(
        'The app cannot listen on port 3000 (EADDRINUSE): stop what uses it, or set PORT to another port',
      );
      expect(output).not.toContain('Spotlight listening');
    } finally {
      holder.close();
    }
  }, 90_000);

  it.each([['--port=N'], ['--port', 'N'], ['-p', 'N'], ['-pN']])(
    'exits 1 when the port named with %s is taken, saying so before anything starts',
    async (...form) => {
      const holder = createServer().listen(0);
      await once(holder, 'listening');
      const { port } = holder.address() as AddressInfo;
      try {
        const { code, output } = await devUntilItEnds(
          form.map((arg) => arg.replace('N', String(port))),
          {
            ...process.env,
            SPOTLIGHT_PORT: String(await freePort()),
            NEXT_DIST_DIR: '.next-dev-port',
          },
        );
        expect(code, output).toBe(1);
        expect(output).toContain(
          `The app cannot listen on port ${port} (EADDRINUSE): stop what uses it, or name another port with --port.`,
        );
        expect(output).not.toContain('Spotlight listening');
      } finally {
        holder.close();
      }
    },
    90_000,
  );

  it('exits 1 when the app and Spotlight are given one port, naming both variables', async () => {
    const port = String(await freePort());
    const { code, output } = await devUntilItEnds([], { ...process.env, PORT: port, SPOTLIGHT_PORT: port });
    expect(code, output).toBe(1);
    expect(output).toContain(
      `The app and Spotlight cannot both listen on port ${port}: set PORT to another port, or set SPOTLIGHT_PORT.`,
    );
  }, 90_000);

  it('stops Spotlight and next dev, freeing both ports, when it is killed outright', async () => {
    const [appPort, spotlightPort] = [await freePort(), await freePort()];
    // The app's port named by PORT: the app listening there shows that PORT moves it, too.
    const { dev, printed, endGroup } = devInItsOwnGroup([], {
      ...process.env,
      PORT: String(appPort),
      SPOTLIGHT_PORT: String(spotlightPort),
      NEXT_DIST_DIR: '.next-dev-killed',
    });
    try {
      const bothUp = async () => (await isListening(appPort)) && (await isListening(spotlightPort));
      expect(await waitFor(bothUp, 60_000), printed.output).toBe(true);

      dev.kill('SIGKILL');
      const bothFree = async () => !(await isListening(appPort)) && !(await isListening(spotlightPort));
      expect(await waitFor(bothFree, 15_000), printed.output).toBe(true);
    } finally {
      endGroup('SIGKILL');
    }
  }, 120_000);

  it.each(['abc', '70000', '0'])('exits 1 and names SPOTLIGHT_PORT when it is %s, not a port', async (value) => {
    const { code, output } = await devRefusing(value);
    expect(code).toBe(1);
    expect(output).toContain('SPOTLIGHT_PORT: must be a whole number from 1 to 65535');
  });

  it.each(['abc', '70000', '0'])(
    'exits 1 and names PORT when it is %s, not a port',
    async (value) => {
      const { code, output } = await devUntilItEnds([], {
        ...process.env,
        PORT: value,
        SPOTLIGHT_PORT: String(await freePort()),
        NEXT_DIST_DIR: '.next-dev-port',
      });
      expect(code).toBe(1);
      expect(output).toContain('PORT: must be a whole number from 1 to 65535');
      expect(output).not.toContain('SPOTLIGHT_PORT');
    },
    90_000,
  );
});
