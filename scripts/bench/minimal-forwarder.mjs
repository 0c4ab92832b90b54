// @ts-check
// The yardstick for the tunnel's throughput: the least a Node tunnel can do (read the body, POST it
// to ingest, answer with ingest's status), with none of our checks.
import { createServer } from 'node:http';

const [port, target] = [Number(process.argv[2]), process.argv[3]];
if (target === undefined) throw new Error('usage: node scripts/bench/minimal-forwarder.mjs <port> <ingest url>');

createServer(async (request, response) => {
  /** @type {Buffer[]} */
  const chunks = [];
  for await (const chunk of request) chunks.push(chunk);
  try {
    const upstream = await fetch(target, { method: 'POST', body: Buffer.concat(chunks) });
    response.writeHead(upstream.status).end(Buffer.from(await upstream.arrayBuffer()));
  } catch {
    response.writeHead(502).end();
  }
}).listen(port, '127.0.0.1');
