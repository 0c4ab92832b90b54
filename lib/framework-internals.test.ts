// Contract tests: each private shape lib/framework-internals.mjs relies on, checked against the
// installed Next.js and Sentry SDK. An upgrade that changes one fails here, in CI, by name.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { getDefaultIntegrations, nodeContextIntegration, spotlightIntegration } from '@sentry/nextjs';
import {
  ACTION_ARGUMENTS_LIMIT,
  ACTION_BUSBOY_OPTIONS,
  ACTION_HEADER,
  BUILD_CONFIG_FILE,
  buildConfigFrom,
  CHANNEL_INJECTION_MODULE,
  CHANNEL_INJECTION_SWITCH,
  DEPLOYMENT_ID_HEADER,
  DRAFT_MODE_COOKIE,
  errorOnlyIntegrations,
  FORM_ACTION_CONTENT_TYPE,
  FrameworkShapeError,
  GLOBAL_ERROR_ROUTE,
  gateNextTracing,
  isDraftModeRequest,
  isNextStartUpSpan,
  NEXT_START_UP_SPAN_TYPES,
  NOT_FOUND_ROUTE,
  nextServerPrepared,
  notFoundInsteadOfGlobalError,
  PRERENDER_CLASSIFICATION,
  PRERENDER_MANIFEST_FILE,
  prerenderedRoutesFrom,
  proxySpanNameOf,
  readEsmEntry,
  registerDiagnosticsChannelInjection,
  reloadingActionHeaders,
  replaceAsyncContextStrategy,
  requestIsolationIntegration,
  SENTRY_ASYNC_CONTEXT_MEMBERS,
  SENTRY_TRACING_SWITCH,
  SERVER_UTILS_MODULE,
  STANDALONE_CONFIG_VARIABLE,
  STATIC_FILE_METHODS,
  staticFilePathOf,
  staticFileRefusal,
  withoutNextUpgrades,
  withoutRequireHook,
  withoutSdkCultureCheck,
} from '@/lib/framework-internals.mjs';
import { locateEsmEntry } from '@/lib/observability/locate-esm-entry';
import { refuseBadActionRequest } from '@/lib/security/action-guard';

const require = createRequire(import.meta.url);

/** Where a path inside an installed package is. */
function packagePath(pkg: string, path: string): string {
  return require.resolve(`${pkg}/package.json`).replace(/package\.json$/, path);
}

/** A file of an installed package, as text, for shapes that live only in its code. */
function packageSource(pkg: string, path: string): string {
  return readFileSync(packagePath(pkg, path), 'utf8');
}

const nextSource = (path: string) => packageSource('next', `dist/${path}`);

/** A Sentry package's ES module build, where next.config.ts points the server's bundle. */
async function esmBuildOf<T>(pkg: string): Promise<T> {
  return (await import(resolve(locateEsmEntry(process.cwd(), pkg)))) as T;
}

/** Every JavaScript file an installed package ships under `build/`, as `<package>/build/...`. */
function scriptsOf(pkg: string): { name: string; source: string }[] {
  return (readdirSync(packagePath(pkg, 'build'), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((file) => /\.[cm]?js$/.test(file))
    .map((file) => ({ name: `${pkg}/build/${file}`, source: packageSource(pkg, `build/${file}`) }));
}

/** The members of a string union type `name` in one of Next's type declarations. */
function unionMembers(declarations: string, name: string): string[] {
  const union = new RegExp(`type ${name} = ([^;]+);`).exec(declarations)?.[1] ?? '';
  return [...union.matchAll(/'([^']+)'/g)].map(([, member]) => member ?? '');
}

describe("Next's build output", () => {
  const constants = require('next/dist/shared/lib/constants.js') as Record<string, unknown>;

  it('names its manifests as we read them', () => {
    expect(`${constants.SERVER_FILES_MANIFEST}.json`).toBe(BUILD_CONFIG_FILE);
    expect(constants.PRERENDER_MANIFEST).toBe(PRERENDER_MANIFEST_FILE);
  });

  it('starts a standalone server from the resolved config in the variable we set', () => {
    expect(nextSource('server/config.js')).toContain(`JSON.parse(process.env.${STANDALONE_CONFIG_VARIABLE})`);
  });

  it('classifies prerendered routes by the route types, responses and computes we know', () => {
    const declarations = nextSource('build/index.d.ts');
    expect(unionMembers(declarations, 'PrerenderRouteType').sort()).toEqual(
      [...PRERENDER_CLASSIFICATION.routeType].sort(),
    );
    expect(unionMembers(declarations, 'PrerenderResponse').sort()).toEqual(
      [...PRERENDER_CLASSIFICATION.response].sort(),
    );
    expect(unionMembers(declarations, 'PrerenderCompute').sort()).toEqual([...PRERENDER_CLASSIFICATION.compute].sort());
    // A page prerendered whole at build is classified so: what prerenderedRoutesFrom takes as built.
    expect(nextSource('build/index.js')).toMatch(
      /function getStaticAppPageClassification[\s\S]{0,400}response: 'complete',\s*compute: 'static'/,
    );
  });

  it('refuses a manifest whose routes carry fields it does not know, rather than call them static', () => {
    const renamed = {
      routes: { '/': { renderingMode: 'STATIC', initialRevalidateSeconds: false } },
      dynamicRoutes: {},
    };
    expect(() => prerenderedRoutesFrom(renamed)).toThrow(FrameworkShapeError);
    expect(() => prerenderedRoutesFrom(renamed)).toThrow(/routes\["\/"\]\.routeType/);
    expect(() => buildConfigFrom({ configuration: {} }, '.next')).toThrow(/no `config` object/);
  });
});

describe("a custom server's start (Next's server/next.js)", () => {
  // Constructing Next's servers reads no file; it sets TURBOPACK in the environment if unset, which
  // nothing here reads.
  const createNext = require('next') as (options: Record<string, unknown>) => Record<string, unknown>;

  it('reaches the server that renders through the prepared custom server, whose prepare is memoized and runs the hook', () => {
    const custom = createNext({ dev: false, dir: tmpdir() });
    expect(Object.getOwnPropertyDescriptor(Object.getPrototypeOf(custom), 'server')?.get).toBeTypeOf('function');
    expect(createNext({ dev: false, dir: tmpdir(), customServer: false }).getServer).toBeTypeOf('function');
    // The router's set-up hands its render server on as `server`, and the custom server keeps it.
    expect(nextSource('server/lib/router-server.js')).toMatch(
      /return \{\s*requestHandler,\s*upgradeHandler,\s*server: handlers\.server,/,
    );
    expect(nextSource('server/base-server.js')).toMatch(
      /async prepare\(\) \{\s*if \(this\.prepared\) return;[\s\S]{0,400}this\.preparedPromise = this\.prepareImpl\(\)/,
    );
    expect(nextSource('server/next-server.js')).toMatch(
      /async prepareImpl\(\) \{\s*await super\.prepareImpl\(\);\s*await this\.runInstrumentationHookIfAvailable\(\);/,
    );
  });

  it('resolves when that prepare does, rejects with what it threw, and refuses another shape', async () => {
    const shaped = (prepare: () => Promise<void>) => ({ server: { getServer: async () => ({ prepare }) } });
    await expect(nextServerPrepared(shaped(async () => undefined))).resolves.toBeUndefined();
    await expect(nextServerPrepared(shaped(() => Promise.reject(new Error('hook failed'))))).rejects.toThrow(
      'hook failed',
    );
    await expect(nextServerPrepared({ server: {} })).rejects.toThrow(FrameworkShapeError);
    await expect(nextServerPrepared({ server: { getServer: async () => ({}) } })).rejects.toThrow(/no prepare\(\)/);
  });

  it('sets its upgrade handling up on the server it is told of, not the one its first request came on', async () => {
    const idle = createServer();
    const requestServer = createServer();
    const custom = createNext(withoutNextUpgrades({ dev: false, dir: tmpdir() }, idle));
    const handle = (custom.getRequestHandler as () => (request: unknown, response: unknown) => Promise<void>)();
    // Not prepared, so the request goes no further than the upgrade set-up.
    await expect(handle({ socket: { server: requestServer }, headers: {} }, {})).rejects.toThrow(/prepare\(\)/);
    expect(idle.listenerCount('upgrade')).toBe(1);
    expect(requestServer.listenerCount('upgrade')).toBe(0);
  });
});

describe("Next's requests and answers", () => {
  it('renders prerendered pages anew while the draft-mode cookie we look for is set', () => {
    const apiUtils = require('next/dist/server/api-utils/index.js') as Record<string, unknown>;
    expect(apiUtils.COOKIE_NAME_PRERENDER_BYPASS).toBe(DRAFT_MODE_COOKIE);
    expect(isDraftModeRequest(`a=1; ${DRAFT_MODE_COOKIE}=x`)).toBe(true);
    expect(isDraftModeRequest(`not${DRAFT_MODE_COOKIE}=x`)).toBe(false);
  });

  it('marks server actions with the header proxy.ts matches', () => {
    const headers = require('next/dist/client/components/app-router-headers.js') as Record<string, unknown>;
    expect(headers.ACTION_HEADER).toBe(ACTION_HEADER);
    expect(readFileSync('proxy.ts', 'utf8')).toContain(`key: '${ACTION_HEADER}'`);
  });

  it("takes a multipart POST as a form's server action by the type proxy.ts matches, whatever its body", () => {
    expect(nextSource('server/lib/server-action-request-meta.js')).toContain(
      `req.method === 'POST' && (contentType == null ? void 0 : contentType.startsWith('${FORM_ACTION_CONTENT_TYPE}'))`,
    );
    // Next anchors a matcher's header value at both ends.
    expect(readFileSync('proxy.ts', 'utf8')).toContain(`key: 'content-type', value: '${FORM_ACTION_CONTENT_TYPE}.*'`);
  });

  it("sends the rendering deployment's id on the client's own requests", () => {
    expect(nextSource('client/components/router-reducer/fetch-server-response.js')).toContain(
      `headers['${DEPLOYMENT_ID_HEADER}'] = deploymentId`,
    );
  });

  it('reloads the page a server action answer names, the way its client reads the header', () => {
    const reducer = nextSource('client/components/router-reducer/reducers/server-action-reducer.js');
    const [[name, value]] = Object.entries(reloadingActionHeaders('/status?a=1;b=2')) as [[string, string]];
    expect(reducer).toContain(`res.headers.get('${name}')`);
    expect(reducer).toMatch(/redirectHeader\?\.split\(';'\)[\s\S]{0,300}case 'replace':/);
    // Split as the reducer splits it: the whole location first, then the kind of navigation.
    expect(value.split(';')).toEqual(['/status?a=1%3Bb=2', 'replace']);
  });
});

describe("React's encoding of a server action's arguments (Next's vendored react-server-dom-webpack)", () => {
  const reactDom = (entry: string) => packagePath('next', `dist/compiled/react-server-dom-webpack/${entry}`);
  // A server function id of the build, as Next's are: 42 hex digits.
  const KNOWN_ACTION = 'ab'.repeat(21);
  /** A body as it travels: its content type and bytes (base64, to cross into the decoder's process). */
  type Sample = { contentType: string; body: string };
  const TEXT = 'text/plain;charset=UTF-8';
  const text = (body: string): Sample => ({ contentType: TEXT, body: Buffer.from(body).toString('base64') });

  /** A multipart body as a browser writes it, from its parts in order; a `{ file }` part is a file. */
  async function multipart(parts: [string, string | { file: string; name?: string }][]): Promise<Sample> {
    const form = new FormData();
    for (const [key, value] of parts) {
      if (typeof value === 'string') form.append(key, value);
      else form.append(key, new Blob([value.file], { type: 'application/octet-stream' }), value.name ?? 'blob');
    }
    return sampleOf(form);
  }

  async function sampleOf(encoded: string | FormData): Promise<Sample> {
    if (typeof encoded === 'string') return text(encoded);
    const response = new Response(encoded);
    const body = Buffer.from(await response.arrayBuffer()).toString('base64');
    return { contentType: response.headers.get('content-type') ?? '', body };
  }

  /** What the guard in front of Next answers: 400 with its reason, or `pass`. */
  async function guarded(sample: Sample): Promise<string> {
    const response = await refuseBadActionRequest(
      new Request('http://app.test/', {
        method: 'POST',
        headers: { host: 'app.test', 'content-type': sample.contentType, [ACTION_HEADER]: '00ff'.repeat(10) },
        body: Buffer.from(sample.body, 'base64'),
      }),
    );
    return response === undefined ? 'pass' : `${response.status} ${await response.text()}`;
  }

  /**
   * What Next's action handler makes of each body, through React's own decoder under the
   * `react-server` condition it needs, as Next reads one (text as UTF-8, multipart through its
   * busboy as it streams in): `ok`, or why the action would fail before its own code could (a
   * rejected decode, a root that is not a list of at most 1,000, a promise among the arguments
   * that rejects or never settles when awaited, a server function the build does not have).
   */
  function nextOutcomes(samples: Sample[]): string[] {
    const decoder = `
      const { Readable } = require('node:stream');
      const { pipeline } = require('node:stream/promises');
      const server = require(${JSON.stringify(reactDom('server.node.js'))});
      const busboy = require(${JSON.stringify(packagePath('next', 'dist/compiled/busboy/index.js'))});
      const known = ${JSON.stringify(KNOWN_ACTION)};
      globalThis.__next_require__ = () => ({ [known]: async () => undefined });
      globalThis.__webpack_chunk_load__ = () => Promise.resolve();
      // Next's map of server functions: it throws for an id the build does not have.
      const serverModuleMap = new Proxy({}, {
        get(target, id) {
          if (typeof id !== 'string' || id === 'then' || id === '$$typeof') return Reflect.get(target, id);
          if (id !== known) throw new Error('Failed to find Server Action ' + id.slice(0, 50));
          return { id: 'module', name: id, chunks: [], async: false };
        },
      });
      const hung = Symbol('hung');
      const within = (promise, ms, late) => Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms, late))]);
      async function decoded(sample) {
        const bytes = Buffer.from(sample.body, 'base64');
        const temporaryReferences = server.createTemporaryReferenceSet();
        if (!sample.contentType.startsWith('multipart/form-data')) {
          return server.decodeReply(bytes.toString('utf-8'), serverModuleMap, { temporaryReferences });
        }
        const parser = busboy({ defParamCharset: 'utf8', headers: { 'content-type': sample.contentType }, limits: { fieldSize: 1024 * 1024 } });
        const [, args] = await Promise.all([
          pipeline(Readable.from([bytes]), parser),
          server.decodeReplyFromBusboy(parser, serverModuleMap, { temporaryReferences }),
        ]);
        return args;
      }
      (async () => {
        const outcomes = [];
        for (const sample of JSON.parse(require('node:fs').readFileSync(0, 'utf8'))) {
          let args;
          try {
            args = await within(decoded(sample), 2000, hung);
            if (args === hung) throw new Error('decoding hung');
          } catch (error) {
            outcomes.push('decode failed: ' + String(error && error.message).slice(0, 100));
            continue;
          }
          if (!Array.isArray(args) || args.length > ${ACTION_ARGUMENTS_LIMIT}) {
            outcomes.push('not a list Next takes');
            continue;
          }
          const failures = [];
          const seen = new Set();
          const values = [...args];
          while (values.length > 0) {
            const value = values.pop();
            if (value === null || typeof value !== 'object' || seen.has(value)) continue;
            seen.add(value);
            if (typeof value.then === 'function') {
              // React's own thenables answer \`then\` with nothing: adopted by a promise to be awaited.
              const settled = await within(Promise.resolve(value).then(() => 'ok', (error) => 'a promise rejects: ' + error.message), 300, 'a promise never settles');
              if (settled !== 'ok') failures.push(settled);
            } else if (value instanceof Map || value instanceof Set) values.push(...[...value].flat());
            else if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) values.push(...Object.values(value));
          }
          outcomes.push(failures[0] ?? 'ok');
        }
        console.log(JSON.stringify(outcomes));
        process.exit(0);
      })();`;
    return JSON.parse(
      execFileSync(process.execPath, ['--conditions=react-server', '-e', decoder], {
        input: JSON.stringify(samples),
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      }),
    ) as string[];
  }

  /** React's client, as the browser has it: what writes an action's arguments. */
  function reactClient() {
    return require(reactDom('client.node.js')) as {
      encodeReply: (args: unknown[], options?: object) => Promise<string | FormData>;
      createServerReference: (id: string, callServer: () => Promise<unknown>) => (...args: unknown[]) => unknown;
      createTemporaryReferenceSet: () => unknown;
    };
  }

  it("lets through argument lists of every kind of value React's client sends, and Next decodes each", async () => {
    const client = reactClient();
    const shared = { a: 1 };
    const cycle: Record<string, unknown> = {};
    cycle.self = { cycle };
    const action = client.createServerReference(KNOWN_ACTION, async () => undefined);
    async function* rows() {
      yield 1;
      yield shared;
    }
    const upload = new FormData();
    upload.append('name', 'value');
    upload.append('upload', new Blob(['x']));
    const blob = new Blob(['file']);
    const argumentLists: unknown[][] = [
      [],
      ['text', '$starts with a dollar', '$', 0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY],
      [null, undefined, true, 10n, -(2n ** 70n), new Date(0), { nested: [{ deep: ['x'] }], 'a:b': 1 }],
      [shared, shared, { again: shared, list: [shared] }],
      [cycle],
      [new Map([['key', shared]]), new Set([shared, 2]), [1, 2].values(), shared],
      [Promise.resolve(shared), shared, Promise.resolve(new Map([[1, Promise.resolve('deep')]]))],
      [
        blob,
        blob,
        new Uint8Array([1]),
        new Int16Array([1, 2]),
        new Float64Array([1.5]),
        new DataView(new ArrayBuffer(2)),
        new ArrayBuffer(3),
      ],
      [upload, new FormData()],
      [action, { again: action }, action.bind(null, 'bound', new Date(0))],
      [new ReadableStream({ start: (controller) => controller.close() })],
      [
        new ReadableStream({
          start: (controller) => {
            controller.enqueue(shared);
            controller.enqueue(new Map([['key', shared]]));
            controller.close();
          },
        }),
      ],
      [rows(), { rows: rows() }],
      [{ callback: () => 1, symbol: Symbol('local') }],
      // Parts written before the list, decoded with it, that refer back into it.
      [shared, new Map([['key', shared]]), new Set([shared]), [shared].values(), new Map([[shared, 'as a key']])],
      [
        new Map<string, unknown>([
          ['a', shared],
          ['b', new Map([['c', shared]])],
        ]),
      ],
      [Promise.resolve({ shared, map: new Map([['again', shared]]) })],
      // Bound arguments that refer to what is beside their function, or to nothing that holds it.
      [new Map([['key', shared]]), action.bind(null, shared)],
      [shared, Promise.resolve({ bound: action.bind(null, shared) })],
      [Promise.resolve({ shared, bound: action.bind(null, 1) })],
      // A promise among bound arguments is handed over, not waited on, even one holding the function.
      (() => {
        const holder: Record<string, unknown> = {};
        const promise = Promise.resolve(holder);
        holder.bound = action.bind(null, promise);
        return [promise];
      })(),
      // Enough parts that their ids in hex have letters.
      Array.from({ length: 40 }, (_, index) => (index % 2 === 0 ? new Set([index]) : new Blob([String(index)]))),
      Array.from({ length: ACTION_ARGUMENTS_LIMIT }, (_, index) => index),
    ];
    const samples = await Promise.all(
      argumentLists.map(async (args) =>
        sampleOf(await client.encodeReply(args, { temporaryReferences: client.createTemporaryReferenceSet() })),
      ),
    );
    expect(await Promise.all(samples.map(guarded))).toEqual(samples.map(() => 'pass'));
    expect(nextOutcomes(samples)).toEqual(samples.map(() => 'ok'));
  });

  it("answers 400 for a server function whose bound arguments wait on what holds it, however indirectly, as React's client writes them", async () => {
    const client = reactClient();
    const action = client.createServerReference(KNOWN_ACTION, async () => undefined);
    const argumentLists: (() => unknown[])[] = [
      // Through a server function bound inside the bound arguments.
      () => {
        const x = { a: 1 };
        return [x, action.bind(null, action.bind(null, x))];
      },
      () => {
        const x = { a: 1 };
        return [{ x }, { f: action.bind(null, { g: action.bind(null, x) }) }];
      },
      // Server functions bound to each other through a list.
      () => {
        const list: unknown[] = [];
        const f = action.bind(null, list);
        list.push(action.bind(null, f));
        return [f];
      },
      // Through a Map decoded beside what holds the function.
      () => {
        const x = { a: 1 };
        const holder = { f: action.bind(null, x) };
        return [
          new Map([['a', holder]]),
          new Map<string, unknown>([
            ['a', holder],
            ['b', x],
          ]),
        ];
      },
    ];
    const samples = await Promise.all(
      argumentLists.map(async (args) =>
        sampleOf(await client.encodeReply(args(), { temporaryReferences: client.createTemporaryReferenceSet() })),
      ),
    );
    // As React's client writes bound arguments that a promise's part reaches before their function:
    // `[p, q, f, { k: p }]`, where `p` and `q` resolve to that object and `f` is bound to it.
    samples.push(
      await multipart([
        ['4', JSON.stringify({ id: KNOWN_ACTION, bound: '$@3' })],
        ['0', JSON.stringify(['$@1', '$@2', '$h4', { k0: '$@1' }])],
        ['1', '"$0:3"'],
        ['2', '"$0:3"'],
        ['6', JSON.stringify({ id: KNOWN_ACTION, bound: '$@5' })],
        ['3', '["$@2","$h6"]'],
        ['5', '["$0:3"]'],
      ]),
    );
    const answers = await Promise.all(samples.map(guarded));
    expect(answers.filter((answer) => !answer.startsWith('400 Malformed server action arguments'))).toEqual([]);
    expect(nextOutcomes(samples)).toEqual(samples.map(() => 'decode failed: decoding hung'));
  }, 30_000);

  // A body React waits on forever takes two seconds to be given up on: more time than a test's default.
  it("answers 400 for what Next's decoder fails on, where Next would answer 500", async () => {
    const refused: Sample[] = [
      text('null'),
      text('"$T"'),
      text('{"0":1}'),
      text(JSON.stringify(Array.from({ length: ACTION_ARGUMENTS_LIMIT + 1 }, () => 0))),
      text('\uFEFF[]'),
      text('["$Q1"]'),
      text('["$1"]'),
      text('["$"]'),
      text('["$zz"]'),
      text('["$n12x"]'),
      text(`["$n${'1'.repeat(301)}"]`),
      text('["$B1"]'),
      text('[{"a":1},"$0:0:b"]'),
      text('["$$ab","$0:0:0"]'),
      text('[{"a:b":"$T"}]'),
      text('["$x1","$x1"]'),
      text(`${'['.repeat(6000)}${']'.repeat(6000)}`),
      await multipart([['1', '"s"']]),
      await multipart([
        ['1', '"s"'],
        ['0', '["$@1"]'],
        ['0', '[]'],
      ]),
      await multipart([
        ['0', '["$@1"]'],
        ['01', '"read as part 1"'],
        ['1', '"part 1"'],
      ]),
      await multipart([
        ['0', '["$Q1"]'],
        ['1', '[]'],
      ]),
      await multipart([
        ['1', '[[1,2]]'],
        ['0', '["$Q1","$Q1"]'],
      ]),
      await multipart([
        ['1', '[]'],
        ['0', '["$Q1"]'],
        ['1', '[]'],
      ]),
      await multipart([
        ['1', { file: 'abc' }],
        ['0', '["$S1"]'],
      ]),
      await multipart([
        ['1', { file: 'bytes234' }],
        ['0', '["$o1","$x1"]'],
      ]),
      await multipart([
        ['1', '"$@1"'],
        ['0', '["$1"]'],
      ]),
      await multipart([
        ['1', 'not a file'],
        ['0', '["$B1"]'],
      ]),
      await multipart([
        ['0', '["$@1"]'],
        ['1', 'not JSON'],
      ]),
      await multipart([
        ['1', '{}'],
        ['0', '["$1","$0:0:x"]'],
      ]),
      await multipart([
        ['1', '[["k","$3"]]'],
        ['0', '["$Q1","$@2"]'],
        ['3', '[1]'],
        ['2', '"$1:0"'],
      ]),
      text('[{"a":"$undefined"},"$0:0:a"]'),
      await multipart([
        ['1', '[]'],
        ['0', '["$Q1"]'],
        ['S1', '1'],
      ]),
      await multipart([
        ['1', JSON.stringify({ id: KNOWN_ACTION, bound: '$@2' })],
        ['2', JSON.stringify(Array.from({ length: ACTION_ARGUMENTS_LIMIT + 1 }, () => 0))],
        ['0', '["$h1"]'],
      ]),
      // A part under a stream's own id, taken as a row, that fails the whole decode there.
      await multipart([
        ['0', '["$R1"]'],
        ['1', '[["$o2","$2"]]'],
        ['2', '{"b":["$o2"]}'],
      ]),
      // Bound arguments React decodes as soon as the list is, before any promise's part.
      await multipart([
        ['1', '["$3","$h2"]'],
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@3' })],
        ['3', '["$1"]'],
        ['0', '["$@1","$h2"]'],
      ]),
      // Paths through a reference to another part, which React finds decoded or not by the order
      // of its listeners.
      await multipart([
        ['3', '[]'],
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@3' })],
        ['1', '{"x":1,"f":"$h2"}'],
        ['0', '["$1","$0:0:x"]'],
      ]),
      text('["$0:1:a:z",{"a":"$0:2"},{"z":1}]'),
      // Rows of a stream sent before what holds it, decoded inside its decode: one takes a Map the
      // list takes too, one makes the list wait on a server function's bound arguments that wait
      // on it; and a row after the one that closed the stream.
      await multipart([
        ['5', '[["a",1]]'],
        ['S1', '"$Q5"'],
        ['0', '["$R1","$Q5"]'],
      ]),
      await multipart([
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@4' })],
        ['3', '{"f":"$h2","g":"$5"}'],
        ['5', '["$3"]'],
        ['4', '["$5"]'],
        ['S1', '"$5"'],
        ['0', '["$R1","$3"]'],
      ]),
      await multipart([
        ['0', '["$R1"]'],
        ['S1', 'C'],
        ['S1', '1'],
      ]),
      // Rows that take a Map the arguments take too, held back until their stream's part is
      // decoded: as a server function's bound arguments, and as a promise's value.
      await multipart([
        ['3', JSON.stringify({ id: KNOWN_ACTION, bound: '$@2' })],
        ['5', '[["a",1]]'],
        ['0', '["$h3"]'],
        ['2', '["$R1","$Q5"]'],
        ['S1', '"$Q5"'],
        ['S1', 'C'],
      ]),
      await multipart([
        ['5', '[["a",1]]'],
        ['0', '["$@2"]'],
        ['2', '["$R1","$Q5"]'],
        ['S1', '"$Q5"'],
        ['S1', 'C'],
      ]),
      // As React's client writes a server function whose bound arguments refer back to what holds
      // it: `[x, f.bind(null, x)]`, a Map holding it, a promise's value holding it, and
      // `[x, f.bind(null, new Set([x]))]`.
      await multipart([
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@1' })],
        ['0', '[{"a":1},"$h2"]'],
        ['1', '["$0:0"]'],
      ]),
      await multipart([
        ['3', JSON.stringify({ id: KNOWN_ACTION, bound: '$@2' })],
        ['1', '[["f","$h3"]]'],
        ['0', '[{"a":1},"$Q1"]'],
        ['2', '["$0:0"]'],
      ]),
      await multipart([
        ['0', '["$@1"]'],
        ['3', JSON.stringify({ id: KNOWN_ACTION, bound: '$@2' })],
        ['1', '{"s":{"a":2},"f":"$h3"}'],
        ['2', '["$1:s"]'],
      ]),
      await multipart([
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@1' })],
        ['0', '[{"a":1},"$h2"]'],
        ['3', '["$0:0"]'],
        ['1', '["$W3"]'],
      ]),
    ];
    const answers = await Promise.all(refused.map(guarded));
    expect(answers.filter((answer) => !answer.startsWith('400 Malformed server action arguments'))).toEqual([]);
    expect(nextOutcomes(refused).filter((outcome) => outcome === 'ok')).toEqual([]);
  }, 30_000);

  it("reads React's client's multipart bodies with its copy of busboy and the options we pass ours, and a form's with the Fetch API", () => {
    const handler = nextSource('server/app-render/action-handler.js');
    const options = Object.entries(ACTION_BUSBOY_OPTIONS)
      .map(([key, value]) => `${key}: '${value}',\\s*`)
      .join('');
    expect(handler).toMatch(
      new RegExp(
        `require\\('next/dist/compiled/busboy'\\)\\(\\{\\s*${options}headers: req\\.headers,\\s*limits: \\{\\s*fieldSize: bodySizeLimitBytes\\s*\\}\\s*\\}\\)`,
      ),
    );
    expect(handler).toMatch(/fakeRequest\.formData\(\)/);
  });

  it("answers 400 for a multipart body Next's busboy reads otherwise than the Fetch API, where Next would answer 500", async () => {
    /** A multipart body written by hand, each part its header lines and its value. */
    const raw = (parts: [string[], string][]): Sample => ({
      contentType: 'multipart/form-data; boundary=x',
      body: Buffer.from(
        `${parts.map(([headers, value]) => `--x\r\n${headers.join('\r\n')}\r\n\r\n${value}\r\n`).join('')}--x--\r\n`,
      ).toString('base64'),
    });
    const named = (name: string) => `Content-Disposition: form-data; name="${name}"`;
    const refused = [
      // busboy decodes the part in its own charset; the Fetch API reads UTF-8.
      raw([[[named('0'), 'Content-Type: text/plain; charset=utf-16le'], '[]']]),
      // busboy takes it for a file, which React cannot read as the list.
      raw([[[named('0'), 'Content-Type: application/octet-stream'], '[]']]),
      // busboy takes the first name given, the Fetch API the last.
      raw([[[named('9'), named('0')], '[]']]),
    ];
    const answers = await Promise.all(refused.map(guarded));
    expect(answers.filter((answer) => !answer.startsWith('400 Malformed server action arguments'))).toEqual([]);
    expect(nextOutcomes(refused).filter((outcome) => outcome === 'ok')).toEqual([]);
  }, 30_000);

  it('lets through what React decodes though its client never writes it: a function bound to its own description or made of nothing, files under a row name, a stream closed twice', async () => {
    const samples = [
      // Only what holds a server function waits for it, not the function's own part.
      await multipart([
        ['2', JSON.stringify({ id: KNOWN_ACTION, bound: '$@1' })],
        ['0', '["$h2"]'],
        ['1', '["$2"]'],
      ]),
      // React makes no server function under a `then` key, nor for an id that is not a string,
      // so nothing waits on these bound arguments.
      await multipart([
        ['1', JSON.stringify({ id: KNOWN_ACTION, bound: '$@2' })],
        ['2', '["$0"]'],
        ['0', '[{"then":"$h1"}]'],
      ]),
      await multipart([
        ['2', JSON.stringify({ id: '$@1', bound: '$@1' })],
        ['0', '["$h2",{"a":1}]'],
        ['1', '["$0:1"]'],
      ]),
      // React keeps a file under a row's name and never reads it as a row.
      await multipart([
        ['0', '["$R1"]'],
        ['S1', '5'],
        ['S1', 'C'],
        ['S1', { file: 'x' }],
      ]),
      await multipart([
        ['S1', { file: 'x' }],
        ['0', '["$R1"]'],
        ['S1', '5'],
        ['S1', 'C'],
      ]),
      // A second close changes nothing.
      await multipart([
        ['0', '["$R1"]'],
        ['S1', '5'],
        ['S1', 'C'],
        ['S1', 'C'],
      ]),
    ];
    expect(await Promise.all(samples.map(guarded))).toEqual(samples.map(() => 'pass'));
    expect(nextOutcomes(samples)).toEqual(samples.map(() => 'ok'));
  });

  it("answers 400 for every generated body Next's decoder fails on, text and multipart", async () => {
    // mulberry32: every bit of it varies, where a power-of-two LCG's low bits cycle.
    let seed = 20261126;
    const random = (below: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return (((t ^ (t >>> 14)) >>> 0) % below) as number;
    };
    const forms = [
      '$$x',
      '$T',
      '$K1',
      '$D2020',
      '$undefined',
      '$-0',
      '$NaN',
      '$n12',
      '$n1x',
      '$@1',
      '$@2',
      '$h1',
      '$Q1',
      '$W2',
      '$i1',
      '$B1',
      '$o2',
      '$S1',
      '$R1',
      '$x2',
      '$1',
      '$2',
      '$0:0',
      '$1:0',
      '$1:a',
      '$2:0:1',
      '$',
      '$zz',
      'text',
    ];
    const value = (depth: number): unknown => {
      const kind = random(5);
      if (depth > 2 || kind === 0) return forms[random(forms.length)];
      if (kind === 1) return random(10);
      if (kind === 2) return { a: value(depth + 1), [random(4) === 0 ? 'b:c' : 'b']: value(depth + 1) };
      return [value(depth + 1), value(depth + 1)];
    };
    const samples: Sample[] = [];
    for (let index = 0; index < 1200; index += 1) {
      const root = JSON.stringify(random(8) === 0 ? value(1) : [value(0), value(0)]);
      if (random(3) === 0) {
        samples.push(text(root));
        continue;
      }
      const parts: [string, string | { file: string }][] = [];
      for (const id of ['1', '2']) {
        const kind = random(6);
        if (kind === 0) parts.push([id, JSON.stringify(value(1))]);
        // A server function, bound to the other part's arguments.
        if (kind === 5) parts.push([id, JSON.stringify({ id: KNOWN_ACTION, bound: id === '1' ? '$@2' : '$@1' })]);
        if (kind === 1) parts.push([id, { file: random(2) === 0 ? 'bytes234' : 'odd' }]);
        if (kind === 2) parts.push([id, 'not JSON']);
        if (kind === 3) parts.push([id, JSON.stringify([value(2)])]);
      }
      // The client writes the list after the parts it refers to, a promise's part after it.
      parts.splice(random(parts.length + 1), 0, ['0', root]);
      samples.push(await multipart(parts));
    }
    const outcomes = nextOutcomes(samples);
    const answers = await Promise.all(samples.map(guarded));
    const missed = samples
      .map((sample, index) => ({ sample, next: outcomes[index], guard: answers[index] }))
      .filter(({ next, guard }) => next !== 'ok' && guard === 'pass')
      .map(({ sample, next }) => ({ body: Buffer.from(sample.body, 'base64').toString(), next }));
    expect(missed).toEqual([]);
    // The generator reaches both answers, with both kinds of body.
    const passedMultipart = samples.filter((sample, index) => answers[index] === 'pass' && sample.contentType !== TEXT);
    expect(passedMultipart.length).toBeGreaterThan(20);
    expect(answers.filter((answer) => answer === 'pass').length).toBeGreaterThan(100);
  });

  it('takes the limit on arguments from the one Next enforces', () => {
    expect(nextSource('server/app-render/action-handler.js')).toContain(
      `SERVER_ACTION_ARGS_LIMIT = ${ACTION_ARGUMENTS_LIMIT};`,
    );
  });
});

describe("Next's trace spans", () => {
  it('names its start-up spans with the span types we filter out', () => {
    const { InstrumentationSpan, LoadComponentsSpan } = require('next/dist/server/lib/trace/constants.js') as Record<
      string,
      Record<string, string>
    >;
    expect([...Object.values(InstrumentationSpan ?? {}), ...Object.values(LoadComponentsSpan ?? {})].sort()).toEqual(
      [...NEXT_START_UP_SPAN_TYPES].sort(),
    );
    expect(nextSource('server/lib/trace/tracer.js')).toContain("'next.span_type': type");
    expect(isNextStartUpSpan({ 'next.span_type': 'LoadComponents.loadRouteModule' })).toBe(true);
    expect(isNextStartUpSpan({ 'next.span_type': 'AppRender.getBodyResult' })).toBe(false);
  });

  it('names its span around the proxy by the span type and the name attribute we read', () => {
    const { MiddlewareSpan } = require('next/dist/server/lib/trace/constants.js') as Record<
      string,
      Record<string, string>
    >;
    expect(MiddlewareSpan?.execute).toBe('Middleware.execute');
    expect(nextSource('server/lib/trace/tracer.js')).toContain("'next.span_name': spanName");
    const proxySpan = { 'next.span_type': MiddlewareSpan?.execute, 'next.span_name': 'middleware POST' };
    expect(proxySpanNameOf(proxySpan)).toBe('middleware POST');
    expect(proxySpanNameOf({ 'next.span_type': 'BaseServer.handleRequest', 'next.span_name': 'POST' })).toBeUndefined();
  });
});

describe("Next's switch for its own fetch span (server/lib/patch-fetch.js)", () => {
  it('is read at each fetch, so the server can turn it on as its tracing starts', () => {
    const patchFetch = nextSource('server/lib/patch-fetch.js');
    expect(patchFetch).toMatch(/const hideSpan = process\.env\.NEXT_OTEL_FETCH_DISABLED === '1'/);
    expect(patchFetch).toMatch(/\bhideSpan,/);
  });
});

describe("Sentry's default server integrations", () => {
  it('include every one the error-only set keeps, by the names we keep them by', () => {
    const defaults = getDefaultIntegrations({});
    expect(errorOnlyIntegrations(defaults).length).toBeGreaterThanOrEqual(8);
    expect(spotlightIntegration().name).toBe('Spotlight');
    const frames = packageSource('@sentry/nextjs', 'build/cjs/server/distDirRewriteFramesIntegration.js');
    expect(frames).toMatch(/name: ["']DistDirRewriteFrames["']/);
  });

  it('include the Http integration, which isolates each request under next dev', () => {
    expect(requestIsolationIntegration(getDefaultIntegrations({})).name).toBe('Http');
    const withoutHttp = getDefaultIntegrations({}).filter((integration) => integration.name !== 'Http');
    expect(() => requestIsolationIntegration(withoutHttp)).toThrow(/lack Http/);
  });

  it('refuse to start when one they always hold is gone', () => {
    const withoutContext = getDefaultIntegrations({}).filter((integration) => integration.name !== 'ContextLines');
    expect(() => errorOnlyIntegrations(withoutContext)).toThrow(/lack ContextLines/);
  });
});

describe("Sentry's culture check (@sentry/node-core, integrations/context.js)", () => {
  it('initializes ICU as the Context integration is built, unless skipped, and process.versions is left as it was', () => {
    const icu = process.versions.icu;
    const formats = vi.spyOn(Intl, 'DateTimeFormat');
    try {
      nodeContextIntegration();
      // The check is still there, built eagerly: otherwise the workaround has nothing to skip.
      expect(formats).toHaveBeenCalled();
      formats.mockClear();
      const built = withoutSdkCultureCheck(process.versions, () => nodeContextIntegration());
      expect(built.name).toBe('Context');
      expect(formats).not.toHaveBeenCalled();
      expect(() =>
        withoutSdkCultureCheck(process.versions, () => {
          throw new Error('init failed');
        }),
      ).toThrow('init failed');
    } finally {
      formats.mockRestore();
    }
    expect(process.versions.icu).toBe(icu);
    expect(Object.getOwnPropertyDescriptor(process.versions, 'icu')?.writable).toBe(false);
  });
});

describe("Sentry's async context strategy (@sentry/core, asyncContext/types.d.ts)", () => {
  it('has the members this app knows, no more and no fewer', () => {
    const declaration = packageSource('@sentry/core', 'build/types/asyncContext/types.d.ts');
    const body = /export interface AsyncContextStrategy \{([\s\S]*?)\n\}/.exec(declaration)?.[1] ?? '';
    const members = [...body.matchAll(/^ {4}(\w+)\??[:(<]/gm)].map(([, member]) => member);
    expect(members).toEqual(SENTRY_ASYNC_CONTEXT_MEMBERS);
  });

  it("is replaced only by a strategy that handles every member the SDK's has, and refuses to start otherwise", () => {
    const set = vi.fn();
    const sdks = { getCurrentScope: () => 1, getTracingChannelBinding: () => 2 };
    replaceAsyncContextStrategy(set, sdks, { getCurrentScope: () => 3, getTracingChannelBinding: () => 4 });
    expect(set).toHaveBeenCalledTimes(1);
    expect(() => replaceAsyncContextStrategy(set, sdks, { getCurrentScope: () => 3 })).toThrow(
      /lacks getTracingChannelBinding/,
    );
    expect(() =>
      replaceAsyncContextStrategy(set, { ...sdks, getSomethingNew: () => 5 }, { ...sdks, getSomethingNew: () => 5 }),
    ).toThrow(FrameworkShapeError);
    expect(set).toHaveBeenCalledTimes(1);
  });
});

describe("the server SDK's integration lists in the server build", () => {
  type Integrations = { getDefaultIntegrations: (options: object) => { name: string }[] };
  type ServerUtils = Record<string, unknown> & {
    getErrorIntegrations: () => { name: string }[];
    getTracingIntegrations: () => { name: string }[];
  };
  const switchHolder = globalThis as { [SENTRY_TRACING_SWITCH]?: boolean };
  const namesOf = (integrations: { name: string }[]) => integrations.map((integration) => integration.name);

  it('are asked for only by the SDK defaults, from @sentry/server-utils, by the names the stand-in replaces', () => {
    const sdk = packageSource('@sentry/node', 'build/esm/sdk/index.js');
    const imported = /import \{([^}]*)\} from '@sentry\/server-utils';/.exec(sdk)?.[1]?.split(',') ?? [];
    expect(imported.map((name) => name.trim())).toEqual(
      expect.arrayContaining(['getErrorIntegrations', 'getTracingIntegrations']),
    );
    // Besides the defaults, only `getAutoPerformanceIntegrations` (integrations/tracing), which
    // the app never calls.
    const callers = ['@sentry/core', '@sentry/node', '@sentry/nextjs', '@sentry/opentelemetry', SERVER_UTILS_MODULE]
      .flatMap(scriptsOf)
      .filter(({ source }) => /(?<!function )\bget(?:Error|Tracing)Integrations\(\)/.test(source))
      .map(({ name }) => name);
    expect(callers.sort()).toEqual([
      '@sentry/node/build/cjs/integrations/tracing/index.js',
      '@sentry/node/build/cjs/sdk/index.js',
      '@sentry/node/build/esm/integrations/tracing/index.js',
      '@sentry/node/build/esm/sdk/index.js',
    ]);
  });

  it("leave out every tracing integration once Sentry's tracing switch is off, even with a rate", async () => {
    const { getDefaultIntegrations: defaultsOf } = await esmBuildOf<Integrations>('@sentry/nextjs');
    const tracing = namesOf((await esmBuildOf<ServerUtils>(SERVER_UTILS_MODULE)).getTracingIntegrations());
    expect(namesOf(defaultsOf({ tracesSampleRate: 1 }))).toEqual(expect.arrayContaining(tracing));
    // The build replaces the switch where the SDK reads it; a global stands in for it here.
    switchHolder[SENTRY_TRACING_SWITCH] = false;
    try {
      const defaults = new Set(namesOf(defaultsOf({ tracesSampleRate: 1 })));
      expect(tracing.filter((name) => defaults.has(name))).toEqual([]);
    } finally {
      delete switchHolder[SENTRY_TRACING_SWITCH];
    }
  });

  it('hold none of the integrations the error-only set keeps', async () => {
    const { getDefaultIntegrations: defaultsOf } = await esmBuildOf<Integrations>('@sentry/nextjs');
    const frameworks = namesOf((await esmBuildOf<ServerUtils>(SERVER_UTILS_MODULE)).getErrorIntegrations());
    const kept = new Set(namesOf(errorOnlyIntegrations(defaultsOf({}))));
    expect(frameworks).toEqual(expect.arrayContaining(['Express', 'Koa']));
    expect(frameworks.filter((name) => kept.has(name))).toEqual([]);
  });

  it('come from a stand-in that is the package as it is, but for those two', async () => {
    const real = await esmBuildOf<ServerUtils>(SERVER_UTILS_MODULE);
    const standIn = (await import('@/lib/observability/error-only-server-utils.mjs')) as Record<string, unknown>;
    const replaced = ['getErrorIntegrations', 'getTracingIntegrations'];
    expect(Object.keys(standIn).sort()).toEqual(Object.keys(real).sort());
    for (const name of Object.keys(real).filter((name) => !replaced.includes(name))) {
      expect({ name, same: standIn[name] === real[name] }).toEqual({ name, same: true });
    }
    expect((standIn.getErrorIntegrations as () => unknown[])()).toEqual([]);
    const askForTracing = standIn.getTracingIntegrations as () => unknown;
    expect(askForTracing).toThrow(FrameworkShapeError);
    expect(askForTracing).toThrow(SENTRY_TRACING_SWITCH);
  });
});

describe("Sentry's runtime channel injection", () => {
  it("is called by the server SDK's client only behind the build-time switch and the init's option", () => {
    const guardedCall = new RegExp(
      `if \\(\\(typeof ${CHANNEL_INJECTION_SWITCH} === "undefined" \\|\\| ${CHANNEL_INJECTION_SWITCH}\\) && options\\.enableRuntimeChannelInjection !== false\\) \\{\\s*(?:\\w+\\.)?registerDiagnosticsChannelInjection\\(\\);`,
    );
    for (const format of ['esm', 'cjs']) {
      const client = packageSource('@sentry/node', `build/${format}/sdk/client.js`);
      expect(client).toContain(`'${CHANNEL_INJECTION_MODULE}'`);
      expect(client).toMatch(guardedCall);
      expect(client.match(/registerDiagnosticsChannelInjection\(\)/g)).toHaveLength(1);
    }
  });

  it('is imported by no other file of the server SDK, by the one name the stand-in exports', () => {
    const importers = [
      '@sentry/core',
      '@sentry/node',
      '@sentry/nextjs',
      '@sentry/opentelemetry',
      '@sentry/server-utils',
    ]
      .flatMap(scriptsOf)
      // The Next.js SDK's build-time config, the forwarders its webpack config points at, and the
      // `node --import` hooks: none of them is in this app's server bundle.
      .filter(({ name }) => !/^@sentry\/nextjs\/build\/(?:(?:esm|cjs)\/config|orchestrion-runtime)\//.test(name))
      .filter(({ name }) => !/^@sentry\/(?:node|nextjs)\/build\/import-hook\.mjs$/.test(name))
      .filter(({ source }) => source.includes('@sentry/server-runtime-injection'))
      .map(({ name }) => name);
    expect(importers.sort()).toEqual(['@sentry/node/build/cjs/sdk/client.js', '@sentry/node/build/esm/sdk/client.js']);
    const injection = require(CHANNEL_INJECTION_MODULE) as Record<string, unknown>;
    expect(typeof injection.registerDiagnosticsChannelInjection).toBe('function');
  });

  it('throws, naming the assumption, when the stand-in is called', () => {
    expect(() => registerDiagnosticsChannelInjection()).toThrow(FrameworkShapeError);
    expect(() => registerDiagnosticsChannelInjection()).toThrow(CHANNEL_INJECTION_SWITCH);
  });
});

describe("the SDK's own packages the app imports", () => {
  it('are pinned to the versions @sentry/nextjs depends on, so the app and the SDK share one copy', () => {
    const ours = (JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> })
      .dependencies;
    const sdks = (
      JSON.parse(packageSource('@sentry/nextjs', 'package.json')) as { dependencies: Record<string, string> }
    ).dependencies;
    for (const name of ['@sentry/core', '@sentry/server-runtime-injection', '@sentry/server-utils']) {
      expect({ name, version: ours[name] }).toEqual({ name, version: sdks[name] });
      expect(require(`${name}/package.json`)).toMatchObject({ version: sdks[name] });
    }
  });
});

describe("@sentry/nextjs's exports map", () => {
  const packageJson = JSON.parse(packageSource('@sentry/nextjs', 'package.json')) as {
    exports: Record<string, Record<string, unknown>>;
  };

  it('sends Node to its CommonJS build, which is why the server imports the ES module one by name', () => {
    expect(packageJson.exports['.']?.node).toMatch(/^\.\/build\/cjs\//);
  });

  it('has an ES module server entry with every export of the CommonJS one the server would get', async () => {
    const esm = await esmBuildOf<object>('@sentry/nextjs');
    const cjs = require(packagePath('@sentry/nextjs', String(packageJson.exports['.']?.node))) as object;
    expect(Object.keys(esm).sort()).toEqual(Object.keys(cjs).sort());
    expect(Object.keys(esm)).toEqual(expect.arrayContaining(['init', 'captureRequestError', 'getDefaultIntegrations']));
  });

  it('is where the alias next.config.ts gives the server SDK points', () => {
    expect(resolve(locateEsmEntry(process.cwd(), '@sentry/nextjs'))).toBe(
      resolve(packagePath('@sentry/nextjs', ''), readEsmEntry(packageJson, '@sentry/nextjs')),
    );
  });

  it('refuses to build when the entry is gone, naming it', () => {
    const withoutEntry = { exports: { '.': { node: './build/cjs/index.server.js' } } };
    expect(() => readEsmEntry(withoutEntry, '@sentry/nextjs')).toThrow(FrameworkShapeError);
    expect(() => readEsmEntry(withoutEntry, '@sentry/nextjs')).toThrow('exports["."].import');
  });
});

describe('the rest of the code', () => {
  // Private shapes, and process-wide globals, outside the two modules that may hold them.
  const PRIVATE =
    /next\/dist\/|Symbol\.for\(|__NEXT_PRIVATE|__prerender_bypass|x-action-redirect|next\.span_type|x-nextjs-|x-client-socket|setAsyncContextStrategy\(/;
  const ALLOWED = new Set(['lib/framework-internals.mjs', 'lib/server/seam.mjs']);

  it("reaches Next's and Sentry's internals only through lib/framework-internals.mjs and lib/server/seam.mjs", () => {
    const files = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { encoding: 'utf8' })
      .split('\n')
      .filter((file) => /\.(?:ts|tsx|mjs|js)$/.test(file))
      .filter((file) => !/(?:^|\/)(?:e2e|bench)\/|\.test\.tsx?$|\.spec\.ts$/.test(file) && !ALLOWED.has(file));
    const offenders = files.filter((file) => {
      try {
        return PRIVATE.test(readFileSync(file, 'utf8'));
      } catch {
        return false; // listed by git, removed in the work tree
      }
    });
    expect(offenders).toEqual([]);
  });
});

describe("Next's switch for its own spans (server/lib/trace/tracer.js)", () => {
  const { ProxyTracerProvider, trace } = require('@opentelemetry/api') as typeof import('@opentelemetry/api');
  const noTracingProvider = new ProxyTracerProvider().getDelegate().constructor;
  const nextTracer = () =>
    (
      require('next/dist/server/lib/trace/tracer') as { getTracer(): { isOpenTelemetryEnabled(): boolean } }
    ).getTracer();

  afterEach(() => trace.disable());

  it('traces a request only while the gate says it is traced, with a provider registered', () => {
    class RegisteredProvider {
      getTracer() {
        return new ProxyTracerProvider().getTracer('test');
      }
    }
    trace.setGlobalTracerProvider(new RegisteredProvider());
    expect(nextTracer().isOpenTelemetryEnabled()).toBe(true);
    let isTraced = false;
    gateNextTracing(trace.getTracerProvider(), noTracingProvider, () => isTraced);
    expect(nextTracer().isOpenTelemetryEnabled()).toBe(false);
    isTraced = true;
    expect(nextTracer().isOpenTelemetryEnabled()).toBe(true);
  });

  it('refuses to gate when no provider is registered', () => {
    expect(() => gateNextTracing(trace.getTracerProvider(), noTracingProvider, () => true)).toThrow(
      FrameworkShapeError,
    );
    expect(() => gateNextTracing({}, noTracingProvider, () => true)).toThrow(FrameworkShapeError);
  });
});

describe("OpenTelemetry's require hook (@opentelemetry/instrumentation)", () => {
  /** What a fresh Node process sees of `require` around constructing the server's instrumentations. */
  function requireAroundConstruction(takeOut: boolean) {
    const script = `
      import Module from 'node:module';
      import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
      import { GenericPoolInstrumentation } from '@opentelemetry/instrumentation-generic-pool';
      import { withoutRequireHook } from './lib/framework-internals.mjs';
      const before = { require: Module.prototype.require, getBuiltinModule: process.getBuiltinModule };
      const construct = () => [new UndiciInstrumentation(), new GenericPoolInstrumentation({ enabled: false })];
      ${takeOut ? 'withoutRequireHook(Module, process, construct);' : 'construct();'}
      console.log(JSON.stringify({
        requireKept: Module.prototype.require === before.require,
        getBuiltinModuleKept: process.getBuiltinModule === before.getBuiltinModule,
      }));`;
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    return JSON.parse(output) as { requireKept: boolean; getBuiltinModuleKept: boolean };
  }

  it('is installed, over require and getBuiltinModule, as soon as an instrumentation is constructed', () => {
    expect(requireAroundConstruction(false)).toEqual({ requireKept: false, getBuiltinModuleKept: false });
  });

  it('is taken out again by withoutRequireHook, leaving both as they were', () => {
    expect(requireAroundConstruction(true)).toEqual({ requireKept: true, getBuiltinModuleKept: true });
  });

  it('is taken out even when a construction throws', () => {
    const loader = { prototype: { require: 'node' as unknown } };
    const nodeProcess = { getBuiltinModule: 'node' as unknown };
    const construct = () => {
      loader.prototype.require = 'hook';
      nodeProcess.getBuiltinModule = 'hook';
      throw new Error('bad config');
    };
    expect(() => withoutRequireHook(loader, nodeProcess, construct)).toThrow('bad config');
    expect([loader.prototype.require, nodeProcess.getBuiltinModule]).toEqual(['node', 'node']);
  });
});

/** A GET with exactly these headers, its status and headers. */
function exactGet(url: string, headers: Record<string, string>): Promise<IncomingMessage> {
  return new Promise((done, fail) => {
    get(url, { headers }, (answer) => {
      answer.resume();
      answer.on('end', () => done(answer));
    }).on('error', fail);
  });
}

describe("Next's static file server (its vendored send)", () => {
  // send itself, as Next calls it (next/dist/server/serve-static.js), with what it answers.
  const send = require('next/dist/compiled/send') as (
    request: IncomingMessage,
    path: string,
    options: { root: string; etag: boolean },
  ) => NodeJS.EventEmitter & { pipe(response: ServerResponse): void };
  let root: string;
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'send-contract-'));
    await writeFile(join(root, 'file.txt'), 'x'.repeat(61));
    server = createServer((request, response) => {
      send(request, 'file.txt', { root, etag: true })
        .on('error', (error: { status?: number; headers?: Record<string, string> }) => {
          response.writeHead(error.status ?? 500, error.headers ?? {});
          response.end();
        })
        .pipe(response);
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((done) => server.close(done));
    await rm(root, { recursive: true, force: true });
  });

  it('refuses exactly the requests, with the status and Content-Range, that send refuses', async () => {
    const file = await stat(join(root, 'file.txt'));
    const etag = String((await exactGet(origin, {})).headers.etag);
    const lastModified = file.mtime.toUTCString();
    const past = 'Thu, 01 Jan 1970 00:00:00 GMT';
    const future = 'Fri, 01 Jan 2100 00:00:00 GMT';
    const ranges = [
      undefined,
      'bytes=0-3',
      'bytes=5-1',
      'bytes=abc',
      'bytes=999-1000',
      'bytes=61-',
      'bytes=60-',
      'bytes=-5',
      'bytes=-0',
      'bytes=0-3,999-1000',
      'bytes=999-1000,1001-1002',
      ' bytes=70-',
      'items=0-1',
      'bytes',
    ];
    const conditions: Record<string, string>[] = [
      {},
      { 'if-match': '*' },
      { 'if-match': etag },
      { 'if-match': etag.slice(2) },
      { 'if-match': '"nope"' },
      { 'if-match': `"nope", ${etag}` },
      { 'if-unmodified-since': past },
      { 'if-unmodified-since': future },
      { 'if-unmodified-since': 'garbage' },
      { 'if-match': etag, 'if-unmodified-since': past },
      { 'if-none-match': etag },
      { 'if-none-match': '"nope"' },
      { 'if-none-match': etag, 'cache-control': 'no-cache' },
      { 'if-modified-since': future },
      { 'if-modified-since': past },
      { 'if-range': etag },
      { 'if-range': '"nope"' },
      { 'if-range': lastModified },
      { 'if-range': past },
    ];
    const disagreements: string[] = [];
    for (const range of ranges) {
      for (const condition of conditions) {
        const headers = { ...condition, ...(range === undefined ? {} : { range }) };
        // node:http, not fetch: fetch adds Cache-Control: no-cache to a conditional request.
        const answer = await exactGet(origin, headers);
        const refusal = staticFileRefusal(headers, file);
        const sent = [412, 416].includes(answer.statusCode ?? 0)
          ? `${answer.statusCode} ${answer.headers['content-range'] ?? ''}`
          : 'served';
        const ours = refusal ? `${refusal.status} ${refusal.headers['content-range'] ?? ''}` : 'served';
        if (sent !== ours) disagreements.push(`${JSON.stringify(headers)}: send ${sent}, ours ${ours}`);
      }
    }
    expect(disagreements).toEqual([]);
  });

  it('is reached for GET and HEAD alone: Next means 405 for any other method, and answers 500', () => {
    const staticBranch =
      /if \(!\(req\.method === 'GET' \|\| req\.method === 'HEAD'\)\) \{\s*res\.setHeader\('Allow', \[\s*'GET',\s*'HEAD'\s*\]\);\s*res\.statusCode = 405;/;
    expect(nextSource('server/lib/router-server.js')).toMatch(staticBranch);
    expect(STATIC_FILE_METHODS).toEqual(['GET', 'HEAD']);
  });

  it('reads a path as Next does: /_next/static/* from the build folder, any other from public/, nothing outside', () => {
    expect(staticFilePathOf('/_next/static/chunks/a.js?v=1', '.next')).toBe('.next/static/chunks/a.js');
    expect(staticFilePathOf('/robots.txt', '.next')).toBe('public/robots.txt');
    expect(staticFilePathOf('/a%20b.txt', '.next')).toBe('public/a b.txt');
    // Dot segments resolve inside the site, encoded or not, as WHATWG URL parsing resolves them.
    expect(staticFilePathOf('/x/../robots.txt', '.next')).toBe('public/robots.txt');
    expect(staticFilePathOf('/x/%2e%2e/robots.txt', '.next')).toBe('public/robots.txt');
    expect(staticFilePathOf('/../../etc/passwd', '.next')).toBe('public/etc/passwd');
    // Next redirects these, and send refuses dotfiles and what decodes to a climb or a NUL.
    expect(staticFilePathOf('//robots.txt', '.next')).toBeUndefined();
    expect(staticFilePathOf('/a\\b.txt', '.next')).toBeUndefined();
    expect(staticFilePathOf('/.gitkeep', '.next')).toBeUndefined();
    expect(staticFilePathOf('/%2e%2e%2fetc/passwd', '.next')).toBeUndefined();
    expect(staticFilePathOf('/%5c..%5cetc', '.next')).toBeUndefined();
    expect(staticFilePathOf('/%00', '.next')).toBeUndefined();
    expect(staticFilePathOf('/%E0%A4%A', '.next')).toBeUndefined();
  });
});

describe("Next's own routes for its screens (shared/lib/entry-constants.js)", () => {
  it('are named as we serve and refuse them', () => {
    const routes = require('next/dist/shared/lib/entry-constants') as Record<string, string>;
    expect(routes.UNDERSCORE_NOT_FOUND_ROUTE).toBe(NOT_FOUND_ROUTE);
    expect(routes.UNDERSCORE_GLOBAL_ERROR_ROUTE).toBe(GLOBAL_ERROR_ROUTE);
  });

  it("sends the error screen's route, found by its path as Next routes it (dot segments resolved, nothing else decoded), to the not-found one with its query", () => {
    for (const [url, target] of [
      ['/_global-error', '/_not-found'],
      ['/_global-error?x=1', '/_not-found?x=1'],
      ['/x/../_global-error', '/_not-found'],
      ['/./_global-error', '/_not-found'],
      ['/%2e/_global-error?_rsc=1', '/_not-found?_rsc=1'],
    ] as const) {
      expect(notFoundInsteadOfGlobalError(url), url).toBe(target);
    }
    for (const url of [
      '/_global-error/x',
      '/%5Fglobal-error',
      '/_global-error%3Fx',
      '/_Global-error',
      '/status',
      '//_global-error',
    ]) {
      expect(notFoundInsteadOfGlobalError(url), url).toBeUndefined();
    }
  });
});
