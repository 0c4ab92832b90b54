import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertTunnelPathIsFree } from '@/lib/tunnel/tunnel-path-check';

describe('assertTunnelPathIsFree', () => {
  let project: string;

  beforeEach(() => {
    project = mkdtempSync(join(tmpdir(), 'tunnel-path-'));
    mkdirSync(join(project, 'app', 'status'), { recursive: true });
    mkdirSync(join(project, 'app', '(marketing)', 'pricing'), { recursive: true });
    mkdirSync(join(project, 'app', '(shop)', '@modal', 'cart'), { recursive: true });
    mkdirSync(join(project, 'app', 'docs', 'relay'), { recursive: true });
    mkdirSync(join(project, 'public'));
    writeFileSync(join(project, 'public', 'feed'), '');
  });

  afterEach(() => rmSync(project, { recursive: true, force: true }));

  it('accepts a path no route or public file uses, also where a nested route has its name', () => {
    expect(() => assertTunnelPathIsFree('/relay', project)).not.toThrow();
  });

  it.each([
    ['/status', 'app/status'],
    ['/feed', 'public/feed'],
    ['/pricing', 'app/(marketing)/pricing'],
    ['/cart', 'app/(shop)/@modal/cart'],
  ])('refuses %s, which %s would answer, naming the variable', (path, taken) => {
    expect(() => assertTunnelPathIsFree(path, project)).toThrow(`SENTRY_TUNNEL_PATH: ${path} is taken by ${taken}`);
  });
});
