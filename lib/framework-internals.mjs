// @ts-check
// Every private shape of Next.js (and the React it vendors), the Sentry SDK and OpenTelemetry's
// instrumentation package this app relies on, and nothing else: files under next/dist, build-output
// fields, undocumented headers and cookies, React's encoding of action arguments, SDK integration
// names, OpenTelemetry's require hook.
// Each says which version it was read from. lib/framework-internals.test.ts checks each against the
// installed packages (an upgrade that changes one goes red in CI), and the readers below throw a
// FrameworkShapeError naming the assumption rather than guess, so the server refuses to start
// (server.mjs, instrumentation.ts) instead of serving pages whose CSP blocks their own scripts.
// Plain JavaScript with types in JSDoc, no dependencies: server.mjs imports it before anything is
// compiled, and the browser bundle imports the span types. No I/O: callers read the files.

export const NEXT_VERSION_READ = '16.4.6';
export const SENTRY_VERSION_READ = '11.1.0';

export class FrameworkShapeError extends Error {
  /** @param {string} assumption what no longer holds, naming the file or field */
  constructor(assumption) {
    super(
      `${assumption} (as read from Next.js ${NEXT_VERSION_READ} / @sentry/nextjs ${SENTRY_VERSION_READ}); not starting`,
    );
    this.name = 'FrameworkShapeError';
  }
}

/** @param {unknown} value @returns {value is Record<string, unknown>} */
function isRecord(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// --- The resolved config of a build (Next 16.4.6) -------------------------------------------------
// Next's documented custom-server option `conf` is not passed on to its router server in 16.4.6
// (vercel/next.js#87429): the only way to start from the config the build resolved, rather than
// evaluating next.config.ts and its build tooling again, is the variable Next's own standalone
// server.js sets. Its value is `config` of `<distDir>/required-server-files.json`.

export const BUILD_CONFIG_FILE = 'required-server-files.json';
export const STANDALONE_CONFIG_VARIABLE = '__NEXT_PRIVATE_STANDALONE_CONFIG';

/**
 * The resolved config inside a parsed required-server-files.json.
 * @param {unknown} requiredServerFiles
 * @param {string} distDir the folder it was read from, which the config must name
 * @returns {Record<string, unknown>}
 */
export function buildConfigFrom(requiredServerFiles, distDir) {
  const config = isRecord(requiredServerFiles) ? requiredServerFiles.config : undefined;
  if (!isRecord(config) || typeof config.distDir !== 'string') {
    throw new FrameworkShapeError(`${BUILD_CONFIG_FILE}: no \`config\` object with a \`distDir\``);
  }
  if (config.distDir !== distDir) {
    throw new FrameworkShapeError(`${BUILD_CONFIG_FILE}: built for distDir ${config.distDir}, started with ${distDir}`);
  }
  return config;
}

// --- A custom server's start (Next 16.4.6, server/next.js) ---------------------------------------
// `next()` gives a custom server a NextCustomServer. Its `prepare()` sets up the router and, behind
// it, the server that renders (`server`, a NextServer, whose `getServer()` is the NextNodeServer).
// That server's own `prepare()`, run once and memoized, runs the instrumentation hook (`register`,
// then Next's own steps after it) and rejects with what went wrong; every request waits for it.
// Next starts it as it sets the server up, but nothing a custom server is given waits for it.
//
// Next attaches its WebSocket upgrade handler (for `next dev`'s hot reload) at the first request
// it handles, to the documented option `httpServer` or else to the server that request came on.
// On a production server it would take every request with an `Upgrade` header: past every check
// of server.mjs, and on a path it does not route, leave the socket open for good.

/**
 * Resolves once Next's server is prepared, the instrumentation hook run; rejects as it failed.
 * @param {unknown} customServer what `next()` returned, after its `prepare()`
 * @returns {Promise<void>}
 */
export async function nextServerPrepared(customServer) {
  const nextServer = isRecord(customServer) ? customServer.server : undefined;
  if (!isRecord(nextServer) || typeof nextServer.getServer !== 'function') {
    throw new FrameworkShapeError('next(): its `server` has no getServer()');
  }
  const server = await nextServer.getServer();
  if (!isRecord(server) || typeof server.prepare !== 'function') {
    throw new FrameworkShapeError('next(): its server has no prepare()');
  }
  await server.prepare();
}

/**
 * `next()`'s options for a server that answers upgrade requests itself: Next's handler goes to
 * `idleServer`, one that never listens, and requests with an `Upgrade` header stay ordinary ones.
 * @template {object} T
 * @param {T} options
 * @param {import('node:http').Server} idleServer
 * @returns {T & { httpServer: import('node:http').Server }}
 */
export function withoutNextUpgrades(options, idleServer) {
  return { ...options, httpServer: idleServer };
}

// --- Prerendered pages (Next 16.4.6, `<distDir>/prerender-manifest.json`) -------------------------
// Each route of `routes` is classified by `routeType`, `response` and `compute`; a page served
// byte for byte as built is `response: 'complete'`, `compute: 'static'`, and never revalidated
// (`initialRevalidateSeconds: false`). Its HTML is `server/app/<route>.html` (`/` is `index`).
// `dynamicRoutes` entries whose `fallback` is not `false` render unknown params on demand.

export const PRERENDER_MANIFEST_FILE = 'prerender-manifest.json';
/** Every value each classification field takes. */
export const PRERENDER_CLASSIFICATION = {
  routeType: ['page', 'route', 'fallback', 'shell'],
  response: ['complete', 'initial', 'empty'],
  compute: ['static', 'resuming', 'blocking'],
};
const ROUTE_TYPES = new Set(PRERENDER_CLASSIFICATION.routeType);
const RESPONSES = new Set(PRERENDER_CLASSIFICATION.response);
const COMPUTES = new Set(PRERENDER_CLASSIFICATION.compute);

/**
 * @typedef {object} PrerenderedRoutes
 * @property {string[]} asBuilt pages served exactly as built, whose HTML is in the build
 * @property {string[]} changing routes whose HTML changes after the build (revalidation, partial
 *   prerendering, params rendered on demand)
 */

/**
 * The prerendered routes of a parsed prerender-manifest.json, classified. Throws on any field it
 * does not know, rather than take an unknown page for a static one.
 * @param {unknown} manifest
 * @returns {PrerenderedRoutes}
 */
export function prerenderedRoutesFrom(manifest) {
  if (!isRecord(manifest) || !isRecord(manifest.routes) || !isRecord(manifest.dynamicRoutes)) {
    throw new FrameworkShapeError(`${PRERENDER_MANIFEST_FILE}: no \`routes\` and \`dynamicRoutes\` objects`);
  }
  /** @type {PrerenderedRoutes} */
  const result = { asBuilt: [], changing: [] };
  for (const [route, entry] of Object.entries(manifest.routes)) {
    const where = `${PRERENDER_MANIFEST_FILE}: routes["${route}"]`;
    if (!isRecord(entry)) throw new FrameworkShapeError(`${where} is not an object`);
    const { routeType, response, compute, initialRevalidateSeconds: revalidate } = entry;
    if (typeof routeType !== 'string' || !ROUTE_TYPES.has(routeType)) {
      throw new FrameworkShapeError(
        `${where}.routeType is ${JSON.stringify(routeType)}, not one of ${[...ROUTE_TYPES]}`,
      );
    }
    if (typeof response !== 'string' || !RESPONSES.has(response)) {
      throw new FrameworkShapeError(`${where}.response is ${JSON.stringify(response)}, not one of ${[...RESPONSES]}`);
    }
    if (typeof compute !== 'string' || !COMPUTES.has(compute)) {
      throw new FrameworkShapeError(`${where}.compute is ${JSON.stringify(compute)}, not one of ${[...COMPUTES]}`);
    }
    if (revalidate !== false && typeof revalidate !== 'number') {
      throw new FrameworkShapeError(`${where}.initialRevalidateSeconds is ${JSON.stringify(revalidate)}`);
    }
    const isAsBuilt = response === 'complete' && compute === 'static' && (revalidate === false || revalidate === 0);
    if (!isAsBuilt) result.changing.push(route);
    else if (routeType === 'page') result.asBuilt.push(route);
  }
  for (const [route, entry] of Object.entries(manifest.dynamicRoutes)) {
    if (!isRecord(entry) || !('fallback' in entry)) {
      throw new FrameworkShapeError(`${PRERENDER_MANIFEST_FILE}: dynamicRoutes["${route}"] has no \`fallback\``);
    }
    if (entry.fallback !== false) result.changing.push(route);
  }
  return result;
}

/**
 * Where a page prerendered at build keeps its HTML, relative to the build folder.
 * @param {string} route
 */
export function prerenderedHtmlPath(route) {
  return `server/app${route === '/' ? '/index' : route}.html`;
}

// --- Requests and answers Next's client and server exchange (Next 16.4.6) -------------------------

/** Draft mode: Next renders a prerendered page anew while this cookie is set (`api-utils`). */
export const DRAFT_MODE_COOKIE = '__prerender_bypass';

// Tested on every page request: a pattern, not a split of every cookie header.
const DRAFT_MODE_COOKIE_PATTERN = new RegExp(`(?:^|;\\s*)${DRAFT_MODE_COOKIE}=`);

/** @param {string | undefined} cookieHeader */
export function isDraftModeRequest(cookieHeader) {
  return cookieHeader !== undefined && DRAFT_MODE_COOKIE_PATTERN.test(cookieHeader);
}

/** The header Next's client puts on a server action's POST, with the action's id. */
export const ACTION_HEADER = 'next-action';

/**
 * What Next takes as a form's server action, posted before hydration, the action named in its
 * fields: any POST whose Content-Type starts with this (server/lib/server-action-request-meta.js),
 * whatever its body holds. proxy.ts's matcher spells it out: Next reads matchers from its text.
 */
export const FORM_ACTION_CONTENT_TYPE = 'multipart/form-data';

/** The header Next's client puts on its own requests, naming the deployment that rendered the page. */
export const DEPLOYMENT_ID_HEADER = 'x-deployment-id';

/**
 * An answer to a server action that makes Next's client load `location` in full (its
 * server-action reducer splits the value at `;`: location, then `push` or `replace`).
 * @param {string} location a path and query on this site
 * @returns {Record<string, string>}
 */
export function reloadingActionHeaders(location) {
  // The location is cut at the first ';': one in the query would cut the address short.
  return { 'x-action-redirect': `${location.replaceAll(';', '%3B')};replace` };
}

/**
 * How Next's action handler reads a multipart server action (server/app-render/action-handler.js):
 * React's client's (with the action header) through its copy of busboy, with these options and the
 * body limit as the field size; a form's (posted before hydration) with the Fetch API's
 * `Request.formData()`. The two read some bodies differently (lib/security/action-form-data.ts).
 */
export const ACTION_BUSBOY_OPTIONS = { defParamCharset: 'utf8' };

// --- A server action's arguments: React's reply encoding (React 19.3, as vendored in Next 16.4.6,
// `compiled/react-server-dom-webpack`: the client's `processReply`, the server's `parseModelString`,
// `reviveModel`, `getOutlinedModel`, `decodeReplyFromBusboy`) --------------------------------------
// React's client encodes an action's arguments as one JSON list (text/plain), or as form parts when
// a value needs more than JSON (multipart): part `0` is the list, other parts are named by their id
// in decimal, rows of a stream `S<id>`, and a string starting with `$` is a value JSON has no word
// for, or a reference to another part by its id in hex. Next decodes the arguments inside its
// action handler, multipart as the parts stream in, where anything React cannot decode, a root that
// is not a list, or more than 1,000 arguments (`SERVER_ACTION_ARGS_LIMIT`,
// `app-render/action-handler.js`) is answered as the action's own failure: a 500 and an error event.
// What React's decoder would fail on is named here, so that it can be refused as a 400 before Next
// starts. React decodes part `0` as it arrives, and with it, depth first in document order, every
// part it refers to but a promise's, which must have arrived by then; then each server function's
// bound arguments, a promise's part, the same way, and a promise's part once awaited. A part waits
// for the parts it refers to, but for one still being decoded around it (React patches that
// reference in later) and a promise's; a server function waits for its bound arguments, and what
// holds the function waits with it. So bound arguments that wait, however indirectly, on what
// holds their function wait on themselves, and the request hangs: a cycle in that graph of waits.
// Refused too, though React may decode them, as its client never writes them and React's answer
// turns on the order of its listeners or the parts' arrival: a path through a reference to another
// part, a part under a stream's own id, a stream's rows before the part that holds it, or taking
// a Map, a Set, an iterator or a stream the arguments take too. Not covered: a server function
// among the arguments whose id the build does not know, React's limit on array slots, the order in
// which the action awaits its promises, and the rest of what a stream's rows hold (read as the
// action reads them).

/** The most arguments Next passes to an action, and React to a server function's bound ones. */
export const ACTION_ARGUMENTS_LIMIT = 1000;
// React refuses a longer BigInt.
const BIGINT_DIGITS_LIMIT = 300;
// React's decoder recurses once per level of nesting, and overflowed Node's stack at about 4,600
// levels, sooner through references between parts, each a few calls deep; React's client writes
// no more than JSON.stringify can, about 2,200 levels in Node.
const NESTING_LIMIT = 3000;
const PART_REFERENCE_DEPTH = 4;
// Decoded from the string alone: `$$` an escaped `$`, `$K` a FormData (its entries may be none),
// `$D` a date, `$I`, `$-` and `$N` the numbers JSON has not, `$u` undefined and `$H` nothing (an
// object's key holding either is dropped). `$T`, a value that stayed in the browser, too, where no
// key above it has a `:`.
const SELF_CONTAINED_TAGS = new Set(['$', 'K', 'D', 'u', 'I', '-', 'N', 'H']);
const NOTHING_TAGS = new Set(['u', 'H']);
// Another part holding JSON: a promise's value, a server function, a Map, a Set, an iterator. A
// Map's, a Set's or an iterator's part is turned into its value once.
const MODEL_TAGS = new Set(['@', 'h', 'Q', 'W', 'i']);
const BUILT_ONCE_TAGS = new Set(['Q', 'W', 'i']);
const BOUND_BACK = "a server function's bound arguments that wait on what holds it";
// Another part holding a file: a Blob, or an ArrayBuffer, typed array or DataView of the file's
// bytes, by the size of their element, which holds the id's slot.
/** @type {Record<string, number>} */
const BINARY_ELEMENT_BYTES = { B: 1, A: 1, V: 1, O: 1, o: 1, U: 1, S: 2, s: 2, L: 4, l: 4, G: 4, g: 8, M: 8, m: 8 };
// A stream or async iterator, opened on its id's slot, which nothing else may hold.
const STREAM_TAGS = new Set(['R', 'r', 'X', 'x']);
const TAGS = new Set([
  ...SELF_CONTAINED_TAGS,
  'T',
  'n',
  ...MODEL_TAGS,
  ...Object.keys(BINARY_ELEMENT_BYTES),
  ...STREAM_TAGS,
]);

/** @param {unknown} value */
const isReference = (value) => typeof value === 'string' && value.startsWith('$');

/** Whether a value may hold something to check: a list, an object or a reference. @param {unknown} value */
const isWorthALook = (value) => isReference(value) || (typeof value === 'object' && value !== null);

/**
 * Whether a part's JSON is what React builds the value a model tag names from: a Map from a list
 * of entries, a Set or an iterator from a list, a server function from its id.
 * @param {string} tag
 * @param {unknown} value
 */
function isModelShaped(tag, value) {
  switch (tag) {
    case 'Q':
      return Array.isArray(value) && value.every((entry) => Array.isArray(entry));
    case 'W':
    case 'i':
      return Array.isArray(value);
    case 'h':
      return isRecord(value) && typeof value.id === 'string';
    default:
      return true;
  }
}

/**
 * Whether anything in a graph of waits waits on itself: a depth-first walk, without recursion, that
 * meets a node it is still inside.
 * @param {Map<number, number[]>} waitsFor
 */
function waitsOnItself(waitsFor) {
  /** @type {Map<number, boolean>} for each node met, whether the walk is still inside it */
  const inside = new Map();
  /** @type {number[]} */
  const path = [];
  /** @type {number[]} how many of each node's waits on the path have been followed */
  const followedOf = [];
  for (const start of waitsFor.keys()) {
    if (inside.has(start)) continue;
    inside.set(start, true);
    path.push(start);
    followedOf.push(0);
    while (path.length > 0) {
      const top = path.length - 1;
      const node = /** @type {number} */ (path[top]);
      const waits = waitsFor.get(node);
      const index = /** @type {number} */ (followedOf[top]);
      if (waits === undefined || index === waits.length) {
        inside.set(node, false);
        path.pop();
        followedOf.pop();
        continue;
      }
      followedOf[top] = index + 1;
      const next = /** @type {number} */ (waits[index]);
      const state = inside.get(next);
      if (state === true) return true;
      if (state === undefined) {
        inside.set(next, true);
        path.push(next);
        followedOf.push(0);
      }
    }
  }
  return false;
}

/**
 * What a stream's row takes as a Map, a Set, an iterator or a stream: the parts it names with
 * those tags, found without recursion. A close row's value follows its `C`.
 * @param {string} row
 * @returns {{ tag: string, id: number }[]}
 */
function partsTakenBy(row) {
  let value;
  try {
    value = JSON.parse(row.startsWith('C') ? row.slice(1) || 'null' : row);
  } catch {
    // A row that is not JSON fails its own stream alone.
    return [];
  }
  /** @type {{ tag: string, id: number }[]} */
  const taken = [];
  const values = [value];
  while (values.length > 0) {
    const next = values.pop();
    if (typeof next === 'string') {
      const tag = next[0] === '$' ? (next[1] ?? '') : '';
      const id = Number.parseInt(next.slice(2), 16);
      if ((BUILT_ONCE_TAGS.has(tag) || STREAM_TAGS.has(tag)) && !Number.isNaN(id)) taken.push({ tag, id });
    } else if (typeof next === 'object' && next !== null) {
      for (const inside of Object.values(next)) values.push(inside);
    }
  }
  return taken;
}

/** Where, in the walk, a part's values have all been looked into. */
class PartEnd {
  /** @param {number} id */
  constructor(id) {
    this.id = id;
  }
}

/**
 * @typedef {object} Part
 * @property {string | Blob} value
 * @property {number} position its place in the body: React reads the parts as they arrive
 */

/**
 * @typedef {object} Parts
 * @property {Map<number, Part>} byId
 * @property {Map<number, StreamRows>} streamRows the rows sent for each stream id
 */

/**
 * @typedef {object} StreamRows
 * @property {number} first the place of the first row
 * @property {boolean} afterClose whether a row other than a close follows one that closed the stream (`C…`)
 * @property {string[]} texts the rows, as sent
 */

/**
 * A body's parts by id, as React's decoder finds them; a string naming the problem when a part's
 * name is one React would read as a part's but not as its client writes it, or comes twice.
 * @param {string | FormData} body
 * @returns {Parts | string}
 */
function partsOf(body) {
  if (typeof body === 'string') return { byId: new Map([[0, { value: body, position: 0 }]]), streamRows: new Map() };
  /** @type {Map<number, Part>} */
  const byId = new Map();
  /** @type {Map<number, StreamRows & { isClosed: boolean }>} */
  const streamRows = new Map();
  let position = 0;
  for (const [name, value] of body) {
    position += 1;
    // A stream's rows share their name; a FormData argument's entries start with `_`.
    if (name.startsWith('S')) {
      const id = Number(name.slice(1));
      // React keeps a file under a row's name and never reads it as a row.
      if (name.length === 1 || Number.isNaN(id) || typeof value !== 'string') continue;
      const isClose = value.startsWith('C');
      let rows = streamRows.get(id);
      if (rows === undefined) {
        rows = { first: position, afterClose: false, isClosed: false, texts: [] };
        streamRows.set(id, rows);
      } else if (rows.isClosed && !isClose) {
        // Closing a closed stream again changes nothing.
        rows.afterClose = true;
      }
      if (isClose) rows.isClosed = true;
      rows.texts.push(value);
      continue;
    }
    // React takes a part's id as `+name`: `''`, `' 1'` or `'0x1'` would stand for a part too.
    const id = Number(name);
    if (Number.isNaN(id)) continue;
    if (name !== String(id)) return `a part named ${JSON.stringify(name.slice(0, 20))}`;
    if (byId.has(id)) return `part ${id} comes twice`;
    byId.set(id, { value, position });
  }
  return { byId, streamRows };
}

/**
 * What in a server action's arguments React's decoder would fail on, where Next would answer with
 * a 500; undefined when there is nothing. Decodes nothing beyond JSON, runs nothing.
 * @param {string | FormData} body a text/plain body as text, or a multipart body's parts
 * @returns {string | undefined}
 */
export function actionArgumentsProblem(body) {
  const parts = partsOf(body);
  if (typeof parts === 'string') return parts;
  /** @type {Map<number, { value: unknown } | string>} each part's JSON, or why it has none */
  const json = new Map();
  /** @type {Set<number>} the parts whose values were queued to be looked into */
  const walked = new Set();
  /**
   * What holds each id's slot in React's decoder: the part's JSON, a typed array of its bytes, or a
   * stream. Only JSON may be read there more than once.
   * @type {Map<number, 'JSON' | 'a typed array' | 'a stream'>}
   */
  const slots = new Map();
  /** @type {Set<number>} the parts turned into a Map, a Set or an iterator */
  const built = new Set();
  /** @type {Map<number, boolean>} whether awaiting a part's promise would await itself */
  const circular = new Map();
  /** @type {Map<number, { tag: string, heldAt: number }>} each stream's tag, and the place of the part that holds it */
  const streams = new Map();
  /** @type {number[]} the parts whose values are being looked into, innermost last */
  const openParts = [];
  /** @type {Set<number>} the same parts */
  const walkedOpen = new Set();
  /**
   * What waits on what in React's decoder: a part by its id, a server function by `-1 - id` of its
   * part (its part's id may be too large for any other sum to stay exact).
   * @type {Map<number, number[]>}
   */
  const waitsFor = new Map();
  /** @param {number} from @param {number} to */
  const wait = (from, to) => {
    const list = waitsFor.get(from);
    if (list === undefined) waitsFor.set(from, [to]);
    // A list of a thousand references to one part waits for it once.
    else if (list[list.length - 1] !== to) list.push(to);
  };
  /** The part whose values are being looked into. */
  const currentPart = () => /** @type {number} */ (openParts[openParts.length - 1]);

  /**
   * Where a value is decoded: by when its parts must have arrived (the place of the part whose
   * arrival decodes it), how deep in React's decoder, whether a key above it has a `:`, whether
   * its own key is `then` (where React makes no server function). Shared by the values of one list
   * or object: a body of a million small values costs a million pushes.
   * @typedef {{ arrivedBy: number, depth: number, underColon: boolean, underThen?: boolean }} Context
   */
  /** @type {unknown[]} values still to look into, in document order from the end: objects, and references */
  const pending = [];
  /** @type {Context[]} each pending value's context, at the same index */
  const pendingContexts = [];
  /** @type {{ id: number, arrivedBy: number }[]} promises' parts, decoded once the list is, as the action awaits them */
  const awaited = [];
  /**
   * Server functions' bound arguments' parts, decoded before any promise's part: React decodes
   * them as soon as the decode that met their function is done.
   * @type {{ id: number, arrivedBy: number }[]}
   */
  const boundQueue = [];

  /** @param {number} id */
  const nameOf = (id) => (id === 0 ? 'the argument list' : `part ${id}`);

  /** @param {number} id */
  const jsonOf = (id) => {
    let result = json.get(id);
    if (result === undefined) {
      const part = parts.byId.get(id);
      if (part === undefined || typeof part.value !== 'string') result = `${nameOf(id)} is missing or not text`;
      else {
        try {
          result = { value: JSON.parse(part.value) };
        } catch {
          result = `${nameOf(id)} is not JSON`;
        }
      }
      json.set(id, result);
    }
    return result;
  };

  /**
   * Whether awaiting part `id`'s promise awaits a promise … of itself, which React rejects as a
   * cycle. Each part is followed once.
   * @param {number} id
   */
  const isCircular = (id) => {
    /** @type {number[]} */
    const chain = [];
    const onChain = new Set();
    let answer = false;
    for (let next = id; ; ) {
      const known = circular.get(next);
      if (known !== undefined) {
        answer = known;
        break;
      }
      if (onChain.has(next)) {
        answer = true;
        break;
      }
      chain.push(next);
      onChain.add(next);
      const model = jsonOf(next);
      if (typeof model === 'string' || typeof model.value !== 'string' || !model.value.startsWith('$@')) break;
      next = Number.parseInt(model.value.slice(2), 16);
    }
    for (const link of chain) circular.set(link, answer);
    return answer;
  };

  /** @param {number} id @param {'JSON' | 'a typed array' | 'a stream'} holder */
  const takeSlot = (id, holder) => {
    const taken = slots.get(id);
    if (taken === undefined) slots.set(id, holder);
    else if (taken !== holder || holder !== 'JSON') return `part ${id} is read as ${taken} and as ${holder}`;
    return undefined;
  };

  /**
   * Queues a list's or object's values to be looked into, in document order, as React decodes them.
   * @param {unknown} value
   * @param {Context} context the list's or object's own
   */
  const queueInside = (value, context) => {
    /** @type {Context | undefined} */
    let inside;
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) {
        const item = value[index];
        if (isWorthALook(item)) {
          inside ??= { ...context, depth: context.depth + 1, underThen: false };
          pending.push(item);
          pendingContexts.push(inside);
        }
      }
      return;
    }
    const record = /** @type {Record<string, unknown>} */ (value);
    const keys = Object.keys(record);
    /** @type {Context | undefined} */
    let underColon;
    /** @type {Context | undefined} */
    let underThen;
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const key = /** @type {string} */ (keys[index]);
      const item = record[key];
      // React drops a `__proto__` key unread.
      if (key === '__proto__' || !isWorthALook(item)) continue;
      pending.push(item);
      inside ??= { ...context, depth: context.depth + 1, underThen: false };
      if (key.includes(':')) {
        underColon ??= { ...inside, underColon: true };
        pendingContexts.push(underColon);
      } else if (key === 'then') {
        underThen ??= { ...inside, underThen: true };
        pendingContexts.push(underThen);
      } else {
        pendingContexts.push(inside);
      }
    }
  };

  /**
   * Queues a part's JSON to be looked into: a list's or object's values, or a reference.
   * @param {unknown} value
   * @param {Context} context the part's
   */
  const queuePart = (value, context) => {
    if (isReference(value)) {
      pending.push(value);
      pendingContexts.push(context);
    } else if (typeof value === 'object' && value !== null) {
      queueInside(value, context);
    }
  };

  /** Opens part `id`, and queues its end behind the values about to be queued. @param {number} id */
  const openPart = (id) => {
    openParts.push(id);
    walkedOpen.add(id);
    pending.push(new PartEnd(id));
    pendingContexts.push(/** @type {Context} */ ({}));
  };

  /**
   * The part being looked into waits for part `id`, unless `id` is being decoded around it: a
   * part is opened once, so an open one is on the stack of open parts.
   * @param {number} id
   */
  const waitForPart = (id) => {
    // The argument list itself is decoded inside no other part.
    if (openParts.length > 0 && !walkedOpen.has(id)) wait(currentPart(), id);
  };

  /**
   * The JSON in part `id`, its values queued once; a string naming the problem if there is none.
   * A promise's part is decoded later, once the list is: only then must its own parts be there.
   * @param {number} id
   * @param {Context} from what refers to it
   * @param {boolean} isPromise
   */
  const modelOf = (id, from, isPromise) => {
    // A promise is handed over as it is, not waited on.
    if (!isPromise) waitForPart(id);
    const part = parts.byId.get(id);
    if (!isPromise && part !== undefined && part.position > from.arrivedBy) {
      return `${nameOf(id)} comes after what needs it decoded`;
    }
    const slotProblem = takeSlot(id, 'JSON');
    if (slotProblem !== undefined) return slotProblem;
    const model = jsonOf(id);
    if (typeof model === 'string') return model;
    if (isPromise && isCircular(id)) return `${nameOf(id)} is a promise of itself`;
    if (!walked.has(id)) {
      if (isPromise) {
        awaited.push({ id, arrivedBy: Math.max(from.arrivedBy, part?.position ?? 0) });
      } else {
        walked.add(id);
        openPart(id);
        queuePart(model.value, {
          ...from,
          depth: from.depth + PART_REFERENCE_DEPTH,
          underColon: false,
          underThen: false,
        });
      }
    }
    return model;
  };

  /**
   * The value a `$<id>:<key>:…` reference names; a string naming the problem when React would
   * not find it (it follows keys of plain objects and lists).
   * @param {string} text
   * @param {Context} from
   * @returns {{ value: unknown } | string}
   */
  const referenced = (text, from) => {
    // A path follows nesting, which goes no deeper than NESTING_LIMIT: one longer leads nowhere.
    const [hexId = '', ...path] = text.slice(1).split(':', NESTING_LIMIT + 2);
    if (path.length > NESTING_LIMIT) return `a reference with a path over ${NESTING_LIMIT} keys`;
    const id = Number.parseInt(hexId, 16);
    if (Number.isNaN(id)) return `a reference without a part: ${text.slice(0, 20)}`;
    const model = modelOf(id, from, false);
    if (typeof model === 'string') return model;
    let { value } = model;
    for (const key of path) {
      // React's client writes a path within one part. One through a reference to another part
      // finds that reference decoded, or not yet (null for good), depending on the order of
      // React's listeners.
      if (isReference(value) && !TAGS.has(/** @type {string} */ (value)[1] ?? '')) {
        return `a reference through another: ${text.slice(0, 40)}`;
      }
      if (key === '__proto__' || typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) {
        return `a reference to nothing: ${text.slice(0, 40)}`;
      }
      const next = /** @type {Record<string, unknown>} */ (value)[key];
      // React drops an object's key whose value decodes to nothing.
      if (!Array.isArray(value) && isReference(next) && NOTHING_TAGS.has(/** @type {string} */ (next)[1] ?? '')) {
        return `a reference to nothing: ${text.slice(0, 40)}`;
      }
      value = next;
    }
    return { value };
  };

  /** @param {string} text a string starting with `$` @param {Context} from */
  const referenceProblem = (text, from) => {
    const tag = text[1] ?? '';
    if (SELF_CONTAINED_TAGS.has(tag)) return undefined;
    if (tag === 'T') return from.underColon ? 'a value left in the browser under a key with a colon' : undefined;
    if (tag === 'n') {
      const digits = text.slice(2);
      if (digits.length > BIGINT_DIGITS_LIMIT) return `a BigInt over ${BIGINT_DIGITS_LIMIT} digits`;
      try {
        BigInt(digits);
        return undefined;
      } catch {
        return 'a BigInt that is not a number';
      }
    }
    if (!TAGS.has(tag)) {
      const target = referenced(text, from);
      return typeof target === 'string' ? target : undefined;
    }
    const id = Number.parseInt(text.slice(2), 16);
    if (Number.isNaN(id)) return `a reference without a part: ${text.slice(0, 20)}`;
    if (STREAM_TAGS.has(tag)) {
      if (!streams.has(id)) streams.set(id, { tag, heldAt: parts.byId.get(currentPart())?.position ?? 0 });
      return takeSlot(id, 'a stream');
    }
    if (BUILT_ONCE_TAGS.has(tag)) {
      if (built.has(id)) return `part ${id} is referred to twice: ${text.slice(0, 20)}`;
      built.add(id);
    }
    if (MODEL_TAGS.has(tag)) {
      // What holds a server function, before its own part is opened.
      const holder = currentPart();
      const model = modelOf(id, from, tag === '@');
      if (typeof model === 'string') return model;
      if (!isModelShaped(tag, model.value)) return `part ${id} does not fit ${text.slice(0, 20)}`;
      return tag === 'h' && makesAServerFunction(/** @type {{ id: string }} */ (model.value).id, from)
        ? boundArgumentsProblem(/** @type {Record<string, unknown>} */ (model.value).bound, id, holder, from)
        : undefined;
    }
    const part = parts.byId.get(id);
    if (part === undefined || typeof part.value === 'string') return `part ${id} is not a file`;
    if (part.position > from.arrivedBy) return `part ${id} comes after what needs it decoded`;
    if (tag !== 'B') {
      const slotProblem = takeSlot(id, 'a typed array');
      if (slotProblem !== undefined) return slotProblem;
    }
    const elementBytes = BINARY_ELEMENT_BYTES[tag] ?? 1;
    return part.value.size % elementBytes === 0
      ? undefined
      : `part ${id} is not a whole number of ${text.slice(0, 2)} elements`;
  };

  /**
   * Whether React makes a server function of a `$h` reference: not under a `then` key, nor for an
   * id that decodes to anything but a string (`loadServerReference`).
   * @param {string} id
   * @param {Context} from
   */
  const makesAServerFunction = (id, from) => from.underThen !== true && (!id.startsWith('$') || id.startsWith('$$'));

  /**
   * A server function's bound arguments: React takes at most 1,000. What holds the function waits
   * for it, and it for its bound arguments' part, which is queued to be decoded.
   * @param {unknown} bound
   * @param {number} functionId the function's part
   * @param {number} holder the part that holds the function
   * @param {Context} from
   */
  const boundArgumentsProblem = (bound, functionId, holder, from) => {
    if (typeof bound !== 'string' || !bound.startsWith('$@')) return undefined;
    const id = Number.parseInt(bound.slice(2), 16);
    wait(holder, -1 - functionId);
    wait(-1 - functionId, id);
    boundQueue.push({ id, arrivedBy: Math.max(from.arrivedBy, parts.byId.get(id)?.position ?? 0) });
    const model = jsonOf(id);
    return typeof model !== 'string' && Array.isArray(model.value) && model.value.length > ACTION_ARGUMENTS_LIMIT
      ? `a server function with more than ${ACTION_ARGUMENTS_LIMIT} bound arguments`
      : undefined;
  };

  const rootPart = parts.byId.get(0);
  const root = modelOf(
    0,
    { arrivedBy: rootPart?.position ?? 0, depth: -PART_REFERENCE_DEPTH, underColon: false },
    false,
  );
  if (typeof root === 'string') return root;
  if (!Array.isArray(root.value)) return 'the arguments are not a list';
  if (root.value.length > ACTION_ARGUMENTS_LIMIT) return `more than ${ACTION_ARGUMENTS_LIMIT} arguments`;
  // Depth first, without recursion: JSON nested as deep as JSON.parse takes must not overflow here.
  // The list first, then each server function's bound arguments and each promise's part as React
  // decodes them, each from a stack of its own.
  for (let bound = 0, group = 0; pending.length > 0 || bound < boundQueue.length || group < awaited.length; ) {
    if (pending.length === 0) {
      const next = /** @type {{ id: number, arrivedBy: number }} */ (
        bound < boundQueue.length ? boundQueue[bound++] : awaited[group++]
      );
      if (walked.has(next.id)) continue;
      walked.add(next.id);
      openPart(next.id);
      const model = /** @type {{ value: unknown }} */ (json.get(next.id));
      queuePart(model.value, { arrivedBy: next.arrivedBy, depth: 0, underColon: false });
      continue;
    }
    const value = pending.pop();
    const context = /** @type {Context} */ (pendingContexts.pop());
    if (value instanceof PartEnd) {
      openParts.pop();
      walkedOpen.delete(value.id);
      continue;
    }
    if (context.depth > NESTING_LIMIT) return `arguments nested over ${NESTING_LIMIT} levels deep`;
    if (typeof value === 'string') {
      const problem = referenceProblem(value, context);
      if (problem !== undefined) return problem;
    } else {
      queueInside(value, context);
    }
  }
  if (waitsOnItself(waitsFor)) return BOUND_BACK;
  // A row sent for an id React opened no stream on lands in whatever holds that slot.
  for (const [id, rows] of parts.streamRows) {
    const holder = slots.get(id);
    if (holder !== undefined && holder !== 'a stream') return `rows of a stream sent for part ${id}, read as ${holder}`;
    // React's client sends a stream's rows after the part that holds it. React decodes rows that
    // came before inside that part's decode, where they may take or wait on its values, and a
    // row after the one that closed a ReadableStream fails the whole decode.
    const stream = streams.get(id);
    if (stream === undefined) continue;
    if (rows.first < stream.heldAt) return `rows of a stream sent before what holds it, for part ${id}`;
    // A Map, a Set, an iterator or a stream is built once: a row that takes one the arguments take
    // too fails, or makes the arguments fail, whichever React decodes second.
    for (const text of rows.texts) {
      for (const { tag, id: taken } of partsTakenBy(text)) {
        if (STREAM_TAGS.has(tag) ? slots.has(taken) : built.has(taken)) {
          return `a stream's row takes part ${taken}, which the arguments take too`;
        }
      }
    }
    if (rows.afterClose && (stream.tag === 'R' || stream.tag === 'r'))
      return `rows of a stream sent after it closed, for part ${id}`;
  }
  // React's client sends a stream's rows as `S<id>` and nothing as `<id>`: React would take such a
  // part as a row, or not, by when it arrives.
  for (const [id, holder] of slots) {
    if (holder === 'a stream' && parts.byId.has(id)) return `part ${id} is sent where a stream's rows go as S${id}`;
  }
  return undefined;
}

// --- Next's own trace spans (Next 16.4.6, `server/lib/trace/constants.js`) ------------------------
// Next names each span's kind in the attribute `next.span_type`. Loading instrumentation and
// route modules opens root spans of their own: start-up work, not requests.

const NEXT_SPAN_TYPE_ATTRIBUTE = 'next.span_type';
export const NEXT_START_UP_SPAN_TYPES = [
  'Instrumentation.loadModule',
  'Instrumentation.register',
  'LoadComponents.loadDefaultErrorComponents',
  'LoadComponents.loadComponents',
  'LoadComponents.loadRouteModule',
];
const startUpSpanTypes = new Set(NEXT_START_UP_SPAN_TYPES);

/**
 * Whether a span's attributes mark it as Next's start-up work.
 * @param {Record<string, unknown> | undefined} attributes
 */
export function isNextStartUpSpan(attributes) {
  const spanType = attributes?.[NEXT_SPAN_TYPE_ATTRIBUTE];
  return typeof spanType === 'string' && startUpSpanTypes.has(spanType);
}

const PROXY_SPAN_TYPE = 'Middleware.execute';

/**
 * The name Next gives its span around the proxy (`proxy.ts`, a middleware in Next's terms), such as
 * `middleware POST`, when `attributes` are that span's; undefined for any other span.
 * @param {Record<string, unknown> | undefined} attributes
 */
export function proxySpanNameOf(attributes) {
  if (attributes?.[NEXT_SPAN_TYPE_ATTRIBUTE] !== PROXY_SPAN_TYPE) return undefined;
  const name = attributes['next.span_name'];
  return typeof name === 'string' ? name : undefined;
}

// --- Whether Next traces a request (Next 16.4.6, `server/lib/trace/tracer.js`) ---------------------
// Next creates its spans, and enters an OpenTelemetry context for each, whenever
// `isOpenTelemetryEnabled()` finds tracing set up: when the active span records, or when the global
// tracer provider (OpenTelemetry's proxy) delegates to anything but its no-op provider, which Next
// tells by the delegate's constructor name. There is no public per-request switch: with a provider
// registered, a request Sentry will not sample still pays for every span Next opens. The proxy's
// getDelegate/setDelegate are @opentelemetry/api 1.9.1's, which the SDK uses.

const NEXT_NO_TRACING_PROVIDER_NAME = 'NoopTracerProvider';

/**
 * @typedef {object} GlobalTracerProvider OpenTelemetry's proxy, the one `trace.getTracerProvider()` returns
 * @property {() => object} getDelegate
 * @property {(delegate: object) => void} setDelegate
 */

/**
 * Lets Next see the registered tracer provider only while `isTraced()`: at other times its
 * delegate reads as the no-op provider, and Next runs the request without spans or contexts.
 * Throws when no provider is registered or OpenTelemetry's proxy is shaped otherwise.
 * @param {unknown} globalProvider what `trace.getTracerProvider()` returns
 * @param {Function} noTracingProvider OpenTelemetry's no-op provider class
 * @param {() => boolean} isTraced
 */
export function gateNextTracing(globalProvider, noTracingProvider, isTraced) {
  if (
    !isRecord(globalProvider) ||
    typeof globalProvider.getDelegate !== 'function' ||
    typeof globalProvider.setDelegate !== 'function'
  ) {
    throw new FrameworkShapeError("OpenTelemetry's global tracer provider has no getDelegate/setDelegate");
  }
  const proxy = /** @type {GlobalTracerProvider} */ (/** @type {unknown} */ (globalProvider));
  const traced = /** @type {{ getTracer: (...args: unknown[]) => unknown }} */ (proxy.getDelegate());
  if (noTracingProvider.name !== NEXT_NO_TRACING_PROVIDER_NAME || traced instanceof noTracingProvider) {
    throw new FrameworkShapeError('No tracer provider is registered for Next to trace with');
  }
  const tracedConstructor = traced.constructor;
  proxy.setDelegate(
    Object.defineProperties(
      { getTracer: (/** @type {unknown[]} */ ...args) => traced.getTracer(...args) },
      { constructor: { get: () => (isTraced() ? tracedConstructor : noTracingProvider) } },
    ),
  );
}

// --- Sentry's runtime channel injection (@sentry/node 11.1.0, `build/{esm,cjs}/sdk/client.js`) ----
// The server SDK's client imports `registerDiagnosticsChannelInjection` from the package below and
// calls it unless Sentry's build-time switch is `false` or the init says
// `enableRuntimeChannelInjection: false`. Only Sentry's own tracing uses what it registers, and the
// server's spans are OpenTelemetry's (lib/observability/server-tracing.ts). Loading it at all costs
// start-up time and memory: its own copy of @sentry/core, a JavaScript parser and, on Node 20, a
// module-hook thread (docs/performance.md). The server build sets the switch to `false`, which drops
// the call, and resolves the import to this module, so nothing of the package is loaded.

export const CHANNEL_INJECTION_MODULE = '@sentry/server-runtime-injection/register';
/** Sentry's documented build-time switch (its bundler plugins' `excludeChannelInjection`). */
export const CHANNEL_INJECTION_SWITCH = '__SENTRY_CHANNEL_INJECTION__';

/**
 * Stands in for the package's export in the server build. The switch drops the SDK's one
 * call, so this runs only when that call has moved out of its reach: the init then fails, and the
 * server does not start (instrumentation.ts), rather than run without what the SDK expected.
 */
export function registerDiagnosticsChannelInjection() {
  throw new FrameworkShapeError(
    `the Sentry SDK called ${CHANNEL_INJECTION_MODULE} in a build whose ${CHANNEL_INJECTION_SWITCH} is false`,
  );
}

// --- The server SDK's ES module build (@sentry/nextjs 11.1.0, `package.json` `exports["."]`) ------
// Under Node the package's exports map sends every import to its CommonJS build (the `node`
// condition, ahead of `import`). Bundled, CommonJS is not tree-shaken: the server loaded the whole
// SDK, every integration and a table describing every span attribute among them (docs/performance.md).
// The package's own `import` entry is the same SDK as ES modules, which the bundler shakes to what
// the server calls. Turbopack cannot pick conditions per runtime, and an alias on `@sentry/nextjs`
// itself would reach the edge runtime too (only a `browser` condition is supported), so the Node
// server imports the SDK by the name below, which next.config.ts resolves to that entry.

export const SERVER_SDK_MODULE = 'sentry-nextjs-server-esm';

/**
 * The ES module build of a Sentry package's main entry, relative to the package, from its parsed
 * package.json. Throws when the exports map no longer has one where it did.
 * @param {unknown} packageJson
 * @param {string} packageName named in the error
 * @returns {string}
 */
export function readEsmEntry(packageJson, packageName) {
  const root = isRecord(packageJson) && isRecord(packageJson.exports) ? packageJson.exports['.'] : undefined;
  const entry = isRecord(root) ? root.import : undefined;
  if (typeof entry !== 'string' || !entry.startsWith('./build/esm/')) {
    throw new FrameworkShapeError(`${packageName} package.json: exports["."].import is not an ES module build`);
  }
  return entry;
}

// --- The server SDK's integration lists in the server build (@sentry/node 11.1.0, ----------------
// `build/esm/sdk/index.js`) ---------------------------------------------------------------------
// The SDK's default integrations take Express, Fastify, Hapi and Koa from @sentry/server-utils'
// `getErrorIntegrations`, and every database, queue, cache and AI integration from its
// `getTracingIntegrations` when spans are on (`getAutoPerformanceIntegrations`, a public export
// this app never calls, returns the same). Both are decided at run time, so the bundler keeps all
// of them: a large part of the server's SDK chunk, evaluated at start-up (docs/performance.md), of
// which the error-only set keeps nothing. The server reports errors only through Sentry (its spans
// are OpenTelemetry's, lib/observability/server-tracing.ts), so next.config.ts resolves
// @sentry/server-utils to lib/observability/error-only-server-utils.mjs, which is the package
// itself (by the second name below) but for these two lists. It also sets Sentry's documented
// switch for its tracing code to `false`: the SDK then never asks for the tracing list, and its
// spans stay off even when SENTRY_TRACES_SAMPLE_RATE, which the SDK reads at run time, is set.

export const SERVER_UTILS_MODULE = '@sentry/server-utils';
/** The package itself, for the module that stands in for it. */
export const SERVER_UTILS_ESM_MODULE = 'sentry-server-utils-esm';
/** Sentry's documented build-time switch for its tracing code. */
export const SENTRY_TRACING_SWITCH = '__SENTRY_TRACING__';

/**
 * Stands in for the framework integrations in the server build: Express, Fastify, Hapi and
 * Koa record spans and capture errors of servers this app does not run, and the error-only set
 * does not keep them.
 * @returns {never[]}
 */
export function listNoFrameworkIntegrations() {
  return [];
}

/**
 * Stands in for the tracing integrations in the server build, where the switch keeps the SDK from
 * asking for them. Called all the same, it throws: the init fails and the server does not start
 * (instrumentation.ts), rather than run Sentry's tracing without what it needs.
 * @returns {never}
 */
export function refuseTracingIntegrations() {
  throw new FrameworkShapeError(
    `Sentry's tracing integrations were asked for in a build whose ${SENTRY_TRACING_SWITCH} is false`,
  );
}

// --- Sentry's default server integrations (@sentry/nextjs 11.1.0, by `name`) ----------------------

/**
 * What a server error event needs when nothing is traced: filters (`ignoreErrors`), causes,
 * request data and source context on the event, and the process-wide handlers for errors outside
 * any request (docs/performance.md has the steps measured). Always among the SDK's defaults.
 */
const ERROR_INTEGRATION_NAMES = [
  'EventFilters',
  'FunctionToString',
  'LinkedErrors',
  'RequestData',
  'OnUncaughtException',
  'OnUnhandledRejection',
  'ContextLines',
  'Context',
];
// Among the defaults only in some builds: the frame rewriting of a build's own output folder, and
// Spotlight under `next dev`. Kept when present.
const OPTIONAL_ERROR_INTEGRATION_NAMES = ['DistDirRewriteFrames', 'Spotlight'];

/**
 * The SDK's `Http` integration, which runs each incoming request in scopes of its own. The
 * production server gives each request its scopes from server.mjs and runs without it (it cost a
 * static page much of its throughput); under `next dev`, where no server.mjs opens a context per
 * request, it keeps one request's scope data off another's events. Throws when it is gone.
 * @template {{ name: string }} T
 * @param {T[]} defaults
 * @returns {T}
 */
export function requestIsolationIntegration(defaults) {
  const http = defaults.find((integration) => integration.name === 'Http');
  if (http === undefined) {
    throw new FrameworkShapeError("Sentry's default integrations lack Http");
  }
  return http;
}

/**
 * The error-only subset of the SDK's default integrations. Throws when one that is always there is
 * missing: renamed or removed, it would drop a part of every error event without a word.
 * @template {{ name: string }} T
 * @param {T[]} defaults
 * @returns {T[]}
 */
export function errorOnlyIntegrations(defaults) {
  const names = new Set(defaults.map((integration) => integration.name));
  const missing = ERROR_INTEGRATION_NAMES.filter((name) => !names.has(name));
  if (missing.length > 0) {
    throw new FrameworkShapeError(`Sentry's default integrations lack ${missing.join(', ')}`);
  }
  const wanted = new Set([...ERROR_INTEGRATION_NAMES, ...OPTIONAL_ERROR_INTEGRATION_NAMES]);
  return defaults.filter((integration) => wanted.has(integration.name));
}

// --- Sentry's culture check (@sentry/node-core 11.1.0, `integrations/context.js`) ----------------
// The `Context` integration reads the server's locale and time zone as it is built: it formats a
// date in Spanish to see that ICU has its data, which initializes ICU, about 20 ms and 8 MB of
// resident memory in a process that had no use for it (docs/performance.md). @sentry/nextjs's init
// builds every default integration before an option could say `culture: false`
// (docs/upstream-reports.md, report 2). The check gives up when `process.versions.icu` is not a
// string, so that is hidden for the init alone; events then carry no `culture` context, which for
// a server is the container's locale and time zone.

/**
 * Runs Sentry's `init` with the culture check of its `Context` integration skipped; puts
 * `versions.icu` back whatever `init` does.
 * @template T
 * @param {NodeJS.ProcessVersions} versions the server's `process.versions`, from its caller: this
 *   module is bundled for the edge runtime and the browser too, whose bundlers warn of `process`
 * @param {() => T} init
 * @returns {T}
 */
export function withoutSdkCultureCheck(versions, init) {
  const icu = Object.getOwnPropertyDescriptor(versions, 'icu');
  if (icu === undefined || icu.configurable !== true) return init();
  Object.defineProperty(versions, 'icu', { ...icu, value: undefined });
  try {
    return init();
  } finally {
    Object.defineProperty(versions, 'icu', icu);
  }
}

// --- Sentry's async context strategy (@sentry/core 11.1.0, `asyncContext/types.d.ts`) -------------
// How the SDK finds the current scopes. `setAsyncContextStrategy` is marked "Private API with no
// semver guarantees", and every member past the first six is optional: the SDK falls back to its
// own behaviour for one a strategy lacks, without a word. The server's strategy keeps the scopes in
// server.mjs's request context (lib/observability/request-scopes.ts).

/** Every member of `AsyncContextStrategy` as read; lib/framework-internals.test.ts reads the type again. */
export const SENTRY_ASYNC_CONTEXT_MEMBERS = [
  'withIsolationScope',
  'withScope',
  'withSetScope',
  'withSetIsolationScope',
  'getCurrentScope',
  'getIsolationScope',
  'getActiveSpan',
  'withActiveSpan',
  'suppressTracing',
  'isTracingSuppressed',
  'getTraceData',
  'continueTrace',
  'startNewTrace',
  'getTracingChannelBinding',
];

/**
 * Puts `strategy` in place of the SDK's strategy `current`. Throws when `current` has a member
 * this list does not know (an upgrade added one), or one that `strategy` lacks: the SDK would fall
 * back for it, silently, where its own strategy did something.
 * @template {object} S
 * @param {(strategy: S) => void} setStrategy `@sentry/core`'s `setAsyncContextStrategy`
 * @param {object} current the strategy `Sentry.init` set (`getAsyncContextStrategy`)
 * @param {S} strategy
 */
export function replaceAsyncContextStrategy(setStrategy, current, strategy) {
  const known = new Set(SENTRY_ASYNC_CONTEXT_MEMBERS);
  const unknown = Object.keys(current).filter((member) => !known.has(member));
  if (unknown.length > 0) {
    throw new FrameworkShapeError(`Sentry's async context strategy has members this app does not know: ${unknown}`);
  }
  const lacking = Object.keys(current).filter((member) => !(member in strategy));
  if (lacking.length > 0) {
    throw new FrameworkShapeError(`The request scopes' async context strategy lacks ${lacking}, which Sentry's has`);
  }
  setStrategy(strategy);
}

// --- OpenTelemetry's require hook (@opentelemetry/instrumentation 0.223.0, ------------------------
// `platform/node/instrumentation.js` and `RequireInTheMiddleSingleton.js`)
// Constructing any Node instrumentation of the package, one that listens on diagnostics channels
// included, creates its one require-in-the-middle hook, which replaces `Module.prototype.require`
// and `process.getBuiltinModule` for the life of the process. The hook resolves the file of every
// later `require`, a cached one included, and Next requires its manifests and the page's module on
// every request, several times for a page (counted: docs/performance.md). The server patches the
// packages it traces itself, at start-up (lib/observability/package-instrumentation.ts, which
// refuses an instrumentation that would wait for the hook), so it takes the hook out again.

/**
 * Runs `construct`, which constructs OpenTelemetry instrumentations, and puts the module loader's
 * functions back as they were before it, which takes out the require hook it installed. Nothing
 * to take out when the hook was there before (a second start in one process, as in tests).
 * @template T
 * @param {{ prototype: { require: unknown } }} moduleLoader `node:module`'s default export
 * @param {{ getBuiltinModule?: unknown }} nodeProcess
 * @param {() => T} construct
 * @returns {T}
 */
export function withoutRequireHook(moduleLoader, nodeProcess, construct) {
  const { require } = moduleLoader.prototype;
  const { getBuiltinModule } = nodeProcess;
  try {
    return construct();
  } finally {
    if (moduleLoader.prototype.require !== require) moduleLoader.prototype.require = require;
    if (nodeProcess.getBuiltinModule !== getBuiltinModule) nodeProcess.getBuiltinModule = getBuiltinModule;
  }
}

// --- Next's own routes for its screens (next/dist/shared/lib/entry-constants.js) ---------------------

export const NOT_FOUND_ROUTE = '/_not-found';
/**
 * The route Next builds from app/global-error.tsx, to prerender the error screen. Asked for by its
 * path under `npm start`, Next renders it as a page and answers 500 (`next dev` answers 404).
 */
export const GLOBAL_ERROR_ROUTE = '/_global-error';

const GLOBAL_ERROR_SEGMENT = GLOBAL_ERROR_ROUTE.slice(1);

/**
 * NOT_FOUND_ROUTE with the request's query, when the request asks for GLOBAL_ERROR_ROUTE by its path
 * as Next routes it: dot segments resolved (`/x/../_global-error`, `/%2e/_global-error`), other
 * escapes not decoded. Undefined for any other request.
 * @param {string} url the request's path and query
 */
export function notFoundInsteadOfGlobalError(url) {
  if (!url.includes(GLOBAL_ERROR_SEGMENT)) return undefined;
  try {
    const { pathname, search } = new URL(url, 'http://n');
    return pathname === GLOBAL_ERROR_ROUTE ? `${NOT_FOUND_ROUTE}${search}` : undefined;
  } catch {
    return undefined;
  }
}

// --- Static files: Next's vendored `send` (Next 16.4.6) --------------------------------------------
// Next serves `/_next/static/*` and public/ through its copy of `send` (next/dist/compiled/send).
// When send refuses a GET or HEAD with 412 (If-Match, If-Unmodified-Since) or 416 (a Range past the
// file), Next renders an error page for that status, which an App Router build does not have, and
// answers 500 with nothing logged (vercel/next.js#92141). It does the same for the 405 it means for
// any other method (next/dist/server/lib/router-server.js). server.mjs answers those itself, as
// send decides them: send's order and parsers, below, which the contract test runs against send.

/** The methods Next serves a static file to. */
export const STATIC_FILE_METHODS = ['GET', 'HEAD'];

/**
 * Whether a request carries a header that can make send refuse it: only those are looked at.
 * @param {import('node:http').IncomingHttpHeaders} headers
 */
export function hasStaticFileConditions(headers) {
  return (
    headers.range !== undefined || headers['if-match'] !== undefined || headers['if-unmodified-since'] !== undefined
  );
}

/**
 * The file Next serves a path from, relative to the server's folder, if it is a static one:
 * `/_next/static/*` from the build's static folder, anything else from public/ (when it is a file).
 * The path is read as Next reads it (dot segments resolved by WHATWG URL parsing, then decoded).
 * Undefined where Next or send answer on their own: a path with `//` or a backslash (Next's 308),
 * a NUL, or a segment starting with a dot (send's 404 for dotfiles).
 * @param {string} url the request's path and query
 * @param {string} distDir
 */
export function staticFilePathOf(url, distDir) {
  const raw = url.split('?')[0] ?? '';
  if (!raw.startsWith('/') || raw.includes('//') || raw.includes('\\')) return undefined;
  let path;
  try {
    path = decodeURIComponent(new URL(raw, 'http://n').pathname);
  } catch {
    return undefined;
  }
  if (path.includes('\0') || path.includes('\\') || path.split('/').some((segment) => segment.startsWith('.'))) {
    return undefined;
  }
  const STATIC_PREFIX = '/_next/static/';
  return path.startsWith(STATIC_PREFIX) ? `${distDir}/static/${path.slice(STATIC_PREFIX.length)}` : `public${path}`;
}

/** send's reading of an HTTP date. @param {unknown} value */
function httpDate(value) {
  const time = typeof value === 'string' && value !== '' ? Date.parse(value) : Number.NaN;
  return typeof time === 'number' ? time : Number.NaN;
}

/** send's list of entity tags: split at commas, spaces around each dropped. @param {string} value */
function entityTags(value) {
  /** @type {string[]} */
  const tags = [];
  let start = 0;
  let end = 0;
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code === 0x20) {
      if (start === end) start = end = index + 1;
    } else if (code === 0x2c) {
      if (start !== end) tags.push(value.substring(start, end));
      start = end = index + 1;
    } else {
      end = index + 1;
    }
  }
  if (start !== end) tags.push(value.substring(start, end));
  return tags;
}

/** @param {string | undefined} list @param {string} etag */
function listsTag(list, etag) {
  return entityTags(list ?? '').some((tag) => tag === etag || tag === `W/${etag}` || `W/${tag}` === etag);
}

/**
 * Whether a Range header, as send's range-parser reads it, satisfies no byte of a file of `size`
 * (its -1). A header without `=` is one it ignores (-2).
 * @param {number} size
 * @param {string} range
 */
function satisfiesNothing(size, range) {
  const equals = range.indexOf('=');
  if (equals === -1) return false;
  return range
    .slice(equals + 1)
    .split(',')
    .every((part) => {
      const [first, second] = part.split('-');
      let start = Number.parseInt(first ?? '', 10);
      let end = Number.parseInt(second ?? '', 10);
      if (Number.isNaN(start)) {
        start = size - end;
        end = size - 1;
      } else if (Number.isNaN(end)) {
        end = size - 1;
      }
      if (end > size - 1) end = size - 1;
      return Number.isNaN(start) || Number.isNaN(end) || start > end || start < 0;
    });
}

/**
 * @typedef {object} StaticFileRefusal what send answers instead of the file
 * @property {412 | 416} status
 * @property {Record<string, string>} headers
 */

/**
 * What send answers a GET or HEAD of a file with, when it refuses it; undefined when it serves it
 * (200, 206, or 304). Send's order: a failed If-Match (else If-Unmodified-Since) is 412; a fresh
 * conditional request is 304 and ends there; then a `bytes=` Range whose If-Range holds and which
 * satisfies nothing is 416. The ETag and Last-Modified are send's, from the file's size and mtime
 * (Next leaves `generateEtags` on; this app too).
 * @param {import('node:http').IncomingHttpHeaders} headers
 * @param {{ size: number, mtime: Date }} file
 * @returns {StaticFileRefusal | undefined}
 */
export function staticFileRefusal(headers, file) {
  const etag = `W/"${file.size.toString(16)}-${file.mtime.getTime().toString(16)}"`;
  const lastModified = httpDate(file.mtime.toUTCString());
  const ifMatch = headers['if-match'];
  const ifNoneMatch = headers['if-none-match'];
  const ifModifiedSince = headers['if-modified-since'];
  if (ifMatch || headers['if-unmodified-since'] || ifNoneMatch || ifModifiedSince) {
    if (ifMatch) {
      if (ifMatch !== '*' && !listsTag(ifMatch, etag)) return { status: 412, headers: {} };
    } else {
      const unmodifiedSince = httpDate(headers['if-unmodified-since']);
      if (!Number.isNaN(unmodifiedSince) && lastModified > unmodifiedSince) return { status: 412, headers: {} };
    }
    // send's `fresh`: then it answers 304 and reads no Range.
    const isFresh =
      !/(?:^|,)\s*?no-cache\s*?(?:,|$)/.test(headers['cache-control'] ?? '') &&
      Boolean(ifModifiedSince || ifNoneMatch) &&
      (!ifNoneMatch || ifNoneMatch === '*' || listsTag(ifNoneMatch, etag)) &&
      (!ifModifiedSince || lastModified <= httpDate(ifModifiedSince));
    if (isFresh) return undefined;
  }
  const { range } = headers;
  if (range === undefined || !/^ *bytes=/.test(range)) return undefined;
  const ifRange = headers['if-range'];
  const isRangeFresh = !ifRange || (ifRange.includes('"') ? ifRange.includes(etag) : lastModified <= httpDate(ifRange));
  if (!isRangeFresh || !satisfiesNothing(file.size, range)) return undefined;
  return { status: 416, headers: { 'content-range': `bytes */${file.size}` } };
}
