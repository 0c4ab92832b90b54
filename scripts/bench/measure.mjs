// Measurements both benchmarks take: load with autocannon, resident memory, the tunnel's
// throughput against a minimal forwarder. Everything runs against loopback.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** The value below which a fraction `q` of `values` lies (nearest rank). */
export function percentile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

export const load = (options) => autocannon({ connections: 10, ...options });

/** Resident memory of a process, in bytes. */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/** A small error envelope for `dsn`, as a browser would post it to the tunnel. */
export function envelopeFor(dsn, message = 'tunnel throughput') {
  return [
    JSON.stringify({ event_id: 'b'.repeat(32), dsn }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify({ message, platform: 'javascript' }),
  ].join('\n');
}

/** Envelopes per second through a tunnel at `url` for 5 s, with its latency. */
export async function tunnelThroughput(url, envelope) {
  const result = await load({
    url,
    method: 'POST',
    body: envelope,
    headers: { 'content-type': 'text/plain;charset=UTF-8' },
    duration: 5,
  });
  return {
    perSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/** Medians of several tunnel runs. */
export function summariseRuns(runs) {
  return {
    perSecond: median(runs.map((entry) => entry.perSecond)),
    p50: median(runs.map((entry) => entry.p50)),
    p99: median(runs.map((entry) => entry.p99)),
    non2xx: runs.reduce((sum, entry) => sum + entry.non2xx, 0),
  };
}
