import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from '@playwright/test';

const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export type Nginx = {
  url: string;
  /** Points the load balancer at other instances, as a deploy does, and waits until it has; nothing if it already does. */
  route(ports: number[]): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Debian's nginx as the load balancer in front of the instances: round-robin, retrying an
 * idempotent request on the next instance when one refuses the connection (its listener closed on
 * SIGTERM). It replaces any X-Forwarded-For the client sent with the client's address, which the
 * instances trust (TRUST_PROXY). Everything it writes stays in its own temporary folder; it runs in the foreground as
 * this process's child. `X-Upstream` tells the tests which instance answered.
 */
function config(prefix: string, port: number, upstreams: number[]): string {
  return `
daemon off;
worker_processes 1;
# On a reload the old worker lets go of its connections within a second, idle ones included (a
# browser's preconnected socket would otherwise reach the old upstreams).
worker_shutdown_timeout 1s;
pid ${prefix}/nginx.pid;
error_log stderr warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  # A new connection per browser request, so a reload routes the very next request anew.
  keepalive_timeout 0;
  upstream app {
${upstreams.map((upstream) => `    server 127.0.0.1:${upstream};`).join('\n')}
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_next_upstream error timeout;
      add_header X-Upstream $upstream_addr always;
    }
    # An envelope is safe to send twice (Sentry drops a repeated event id), so a report whose
    # instance reset the connection as it stopped is retried on the next one like a GET.
    location = /monitoring {
      proxy_pass http://app;
      proxy_http_version 1.1;
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-For $remote_addr;
      proxy_next_upstream error timeout non_idempotent;
      add_header X-Upstream $upstream_addr always;
    }
  }
}
`;
}

/** How many processes `parent` has: nginx's master, its worker, and any old one still closing. */
function workersOf(parent: number): number {
  return readdirSync('/proc').filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      // The fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent;
    } catch {
      return false; // ended while being read
    }
  }).length;
}

export async function startNginx(port: number, upstreams: number[]): Promise<Nginx> {
  const prefix = mkdtempSync(join(tmpdir(), 'shell-nginx-'));
  const configPath = join(prefix, 'nginx.conf');
  writeFileSync(configPath, config(prefix, port, upstreams));
  const child: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', configPath, '-e', 'stderr'], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const answeredBy = async () => (await fetch(`${url}/api/health`).catch(() => undefined))?.headers.get('x-upstream');
  await expect.poll(answeredBy, { timeout: 10_000, message: 'waiting for nginx' }).toBeTruthy();
  let routedTo = upstreams.join();
  return {
    url,
    async route(ports) {
      if (ports.join() === routedTo) return;
      routedTo = ports.join();
      writeFileSync(configPath, config(prefix, port, ports));
      child.kill('SIGHUP');
      // Reloaded once several answers in a row come from the new instances only.
      const wanted = new Set(ports.map((upstream) => `127.0.0.1:${upstream}`));
      await expect
        .poll(
          async () => {
            const answers = await Promise.all([1, 2, 3, 4].map(answeredBy));
            return answers.every((answer) => answer !== null && answer !== undefined && wanted.has(answer));
          },
          { timeout: 10_000, message: `waiting for nginx to route to ${ports.join(', ')}` },
        )
        .toBe(true);
      // ...and once the old worker, with whatever connections it still held, is gone.
      await expect
        .poll(() => workersOf(child.pid ?? 0), { timeout: 10_000, message: 'waiting for the old nginx worker to exit' })
        .toBe(1);
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}
