import type { AppServer } from '@/lib/server/seam.mjs';

/** A fresh copy of the seam's module, as Next's bundles each hold one apart from server.mjs's. */
async function seamCopy() {
  vi.resetModules();
  return import('@/lib/server/seam.mjs');
}

describe('the app server handed over through the seam', () => {
  it("reaches server.mjs's copy of the seam from the copy the instrumentation hook provides it through, whichever asks first", async () => {
    const serverCopy = await seamCopy();
    const hookCopy = await seamCopy();
    expect(hookCopy).not.toBe(serverCopy);
    const app = { tunnelPath: '/monitoring' } as AppServer;

    const provided = serverCopy.whenAppServerProvided();
    expect(serverCopy.appServer()).toBeUndefined();
    hookCopy.provideAppServer(app);

    await expect(provided).resolves.toBe(app);
    expect(serverCopy.appServer()).toBe(app);
    // A caller after the hook ran gets it at once.
    await expect((await seamCopy()).whenAppServerProvided()).resolves.toBe(app);
  });
});
