import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ingestConnections, postToIngest } from '@/lib/tunnel/ingest-client';

// An ingest stand-in that drops any connection used for a second request, as a proxy in front of
// ingest does with a kept-alive connection it has closed as idle at the moment it is reused.
let server: Server;
let url: URL;
let requestsAnswered: number;

beforeAll(async () => {
  const requestsPerSocket = new WeakMap<Socket, number>();
  server = createServer((request, response) => {
    const count = (requestsPerSocket.get(request.socket) ?? 0) + 1;
    requestsPerSocket.set(request.socket, count);
    if (count > 1) {
      request.socket.destroy();
      return;
    }
    request.resume();
    request.on('end', () => {
      requestsAnswered += 1;
      response.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/1/envelope/`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  requestsAnswered = 0;
});

describe('postToIngest', () => {
  it('sends an envelope again on a fresh connection when ingest closed the kept-alive one it reused', async () => {
    const body = new TextEncoder().encode('{}\n{"type":"event"}\n{}');
    const answers = [];
    for (let attempt = 0; attempt < 3; attempt++) answers.push(await postToIngest(url, body, { timeoutMs: 2_000 }));
    expect(answers.map((answer) => ('status' in answer ? answer.status : answer.failure))).toEqual([200, 200, 200]);
    expect(requestsAnswered).toBe(3);
  });

  it("does so on a pool of the caller's own as on the tunnel's", async () => {
    const connections = ingestConnections();
    const body = new TextEncoder().encode('{}\n{"type":"event"}\n{}');
    const answers = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      answers.push(await postToIngest(url, body, { timeoutMs: 2_000, connections }));
    }
    expect(answers.map((answer) => ('status' in answer ? answer.status : answer.failure))).toEqual([200, 200, 200]);
    expect(requestsAnswered).toBe(3);
    // The connection it kept alive is in the pool it was given.
    await expect.poll(() => Object.values(connections['http:'].freeSockets).flat().length).toBeGreaterThan(0);
  });

  it('still calls ingest unreachable when a fresh connection fails', async () => {
    expect(
      await postToIngest(new URL('http://127.0.0.1:1/api/1/envelope/'), new Uint8Array(1), { timeoutMs: 2_000 }),
    ).toEqual({
      failure: 'unreachable',
    });
  });
});
