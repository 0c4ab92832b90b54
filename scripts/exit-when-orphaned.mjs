// Loaded into every Node process `npm run dev` starts (NODE_OPTIONS, scripts/dev.mjs): Spotlight,
// `next dev` and its workers. A process whose parent is gone stops itself as a SIGTERM would stop
// it, so a parent that dies without passing a signal on (Spotlight killed, out of memory) leaves no
// `next dev` serving, and holding the port, under PID 1.
import { whenOrphaned } from './when-orphaned.mjs';

whenOrphaned(() => process.kill(process.pid, 'SIGTERM'));
