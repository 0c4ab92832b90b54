// `npm run dev`: Next's dev server inside Spotlight, Sentry's local UI at http://localhost:8969.
// `spotlight run` starts its sidecar and passes its URL to the app as SENTRY_SPOTLIGHT and
// NEXT_PUBLIC_SENTRY_SPOTLIGHT, so every captured error shows up there with no DSN or account.
import { spawn } from 'node:child_process';

const child = spawn('npx', ['spotlight', 'run', '--port', '8969', 'next', 'dev', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: process.env.NEXT_TELEMETRY_DISABLED ?? '1' },
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
