// @ts-check
// Loaded into Spotlight's own process by scripts/dev.mjs (`node --import`). Should scripts/dev.mjs
// be killed outright (a SIGKILL, an editor's hard stop), it cannot pass anything on: Spotlight then
// stops itself as on a SIGTERM, and `next dev` with it, rather than keep their ports.
import { whenOrphaned } from './when-orphaned.mjs';

whenOrphaned(() => process.kill(process.pid, 'SIGTERM'));
