// @ts-check
// A minimal stand-in for the part of Sentry's web API that a source-map upload uses, on loopback,
// because no real Sentry is reachable from the tests: the organization, the chunk-upload
// protocol (chunks by SHA-1, gzip allowed), artifact-bundle assembly and releases. It records what
// it got, unpacks each assembled bundle, and answers 404 to anything else (recorded too). It is
// not Sentry: it checks checksums and the token, and nothing a real Sentry does with the files.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { strFromU8, unzipSync } from 'fflate';

/**
 * @typedef {{ url?: string, type?: string, headers?: Record<string, string> }} ManifestEntry
 * @typedef {{ path: string, url?: string, type?: string, debugId?: string, sourcemap?: string, content: string }} BundleFile
 * @typedef {{ org: string, projects: string[], release?: string, dist?: string, files: BundleFile[] }} ArtifactBundle
 * @typedef {{ version: string, projects: string[], finalized: boolean }} Release
 * @typedef {{ bundles: ArtifactBundle[], releases: Release[], unhandled: string[], refused: string[] }} Received
 */

const CHUNK_SIZE = 8 * 1024 * 1024;

/**
 * @param {{ token: string }} options the auth token the uploader must send
 * @returns {Promise<{ url: string, received: Received, close(): Promise<void> }>}
 */
export async function startSentryApiStandIn({ token }) {
  /** @type {Map<string, Buffer>} */
  const chunks = new Map();
  /** @type {Set<string>} */
  const assembled = new Set();
  /** @type {Received} */
  const received = { bundles: [], releases: [], unhandled: [], refused: [] };
  let base = '';

  /**
   * @param {import('node:http').ServerResponse} response
   * @param {number} status
   * @param {unknown} body
   */
  function json(response, status, body) {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  }

  /** @param {Request} request */
  async function storeChunks(request) {
    for (const [field, value] of await request.formData()) {
      if (typeof value === 'string') continue;
      const bytes = Buffer.from(await value.arrayBuffer());
      const data = field === 'file_gzip' ? gunzipSync(bytes) : bytes;
      const checksum = createHash('sha1').update(data).digest('hex');
      if (checksum !== value.name) return false;
      chunks.set(checksum, data);
    }
    return true;
  }

  /**
   * @param {string} org
   * @param {{ checksum: string, chunks: string[], projects: string[], version?: string, dist?: string }} body
   */
  function assemble(org, body) {
    if (assembled.has(body.checksum)) return { state: 'ok', missingChunks: [] };
    const missingChunks = body.chunks.filter((checksum) => !chunks.has(checksum));
    if (missingChunks.length > 0) return { state: 'not_found', missingChunks };
    const zip = Buffer.concat(body.chunks.map((checksum) => /** @type {Buffer} */ (chunks.get(checksum))));
    if (createHash('sha1').update(zip).digest('hex') !== body.checksum) {
      return { state: 'error', detail: 'checksum mismatch', missingChunks: [] };
    }
    const entries = unzipSync(zip);
    /** @type {{ files: Record<string, ManifestEntry> }} */
    const manifest = JSON.parse(strFromU8(entries['manifest.json'] ?? new Uint8Array()));
    const files = Object.entries(manifest.files).map(([path, entry]) => ({
      path,
      url: entry.url,
      type: entry.type,
      debugId: entry.headers?.['debug-id'],
      sourcemap: entry.headers?.sourcemap ?? entry.headers?.Sourcemap,
      content: strFromU8(entries[path] ?? new Uint8Array()),
    }));
    received.bundles.push({ org, projects: body.projects, release: body.version, dist: body.dist, files });
    assembled.add(body.checksum);
    return { state: 'created', missingChunks: [] };
  }

  /**
   * @param {import('node:http').IncomingMessage} incoming
   * @param {import('node:http').ServerResponse} response
   */
  async function handle(incoming, response) {
    const body = await new Promise((resolve, reject) => {
      /** @type {Buffer[]} */
      const parts = [];
      incoming.on('data', (part) => parts.push(part));
      incoming.on('end', () => resolve(Buffer.concat(parts)));
      incoming.on('error', reject);
    });
    const { method = 'GET', url = '/' } = incoming;
    const path = new URL(url, base).pathname;
    if (incoming.headers.authorization !== `Bearer ${token}`) {
      received.refused.push(`${method} ${path}`);
      return json(response, 401, { detail: 'Invalid token' });
    }
    const [, org, rest = ''] = /^\/api\/0\/organizations\/([^/]+)\/(.*)$/.exec(path) ?? [];
    if (org === undefined) {
      received.unhandled.push(`${method} ${path}`);
      return json(response, 404, { detail: 'Not found' });
    }
    const readJson = () => JSON.parse(body.toString('utf8') || '{}');

    if (method === 'GET' && rest === '') {
      return json(response, 200, { id: '1', slug: org, name: org, links: { organizationUrl: base, regionUrl: base } });
    }
    if (method === 'GET' && rest === 'chunk-upload/') {
      return json(response, 200, {
        url: `${base}/api/0/organizations/${org}/chunk-upload/`,
        chunkSize: CHUNK_SIZE,
        chunksPerRequest: 64,
        maxFileSize: 2 ** 31,
        maxRequestSize: 4 * CHUNK_SIZE,
        concurrency: 4,
        hashAlgorithm: 'sha1',
        compression: ['gzip'],
        accept: ['artifact_bundles', 'release_files', 'sources'],
      });
    }
    if (method === 'POST' && rest === 'chunk-upload/') {
      const request = new Request(new URL(url, base), {
        method,
        headers: /** @type {Record<string, string>} */ (incoming.headers),
        body,
      });
      return (await storeChunks(request))
        ? json(response, 200, {})
        : json(response, 400, { detail: 'checksum mismatch' });
    }
    if (method === 'POST' && rest === 'artifactbundle/assemble/') {
      return json(response, 200, assemble(org, readJson()));
    }
    if (method === 'POST' && rest === 'releases/') {
      const { version, projects = [] } = readJson();
      const release = { version, projects, finalized: false };
      received.releases.push(release);
      return json(response, 201, { version, projects: projects.map((/** @type {string} */ slug) => ({ slug })) });
    }
    const releasePath = /^releases\/([^/]+)\/$/.exec(rest);
    const release = received.releases.find(
      (candidate) => candidate.version === decodeURIComponent(releasePath?.[1] ?? ''),
    );
    if (method === 'PUT' && release !== undefined) {
      if (readJson().dateReleased !== undefined) release.finalized = true;
      return json(response, 200, { version: release.version, dateReleased: new Date().toISOString() });
    }
    received.unhandled.push(`${method} ${path}`);
    return json(response, 404, { detail: 'Not found' });
  }

  const server = createServer((incoming, response) => {
    handle(incoming, response).catch((error) => json(response, 400, { detail: String(error) }));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  return {
    url: base,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
