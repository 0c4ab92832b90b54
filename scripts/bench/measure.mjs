// @ts-check
// Measurements both benchmarks take: load with autocannon, resident memory, the tunnel's
// throughput against a minimal forwarder. Everything runs against loopback.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

/**
 * The value at `index` of `values` sorted, ascending. A figure taken from no measurements is a
 * fault of the bench, not a number to report.
 * @param {number[]} values
 * @param {(length: number) => number} index
 * @returns {number}
 */
function ranked(values, index) {
  const value = [...values].sort((a, b) => a - b)[index(values.length)];
  if (value === undefined) throw new Error('a figure was asked of no measurements');
  return value;
}

/**
 * The middle value; of an even count, the higher of the two middle ones.
 * @param {number[]} values
 */
export const median = (values) => ranked(values, (length) => Math.floor(length / 2));

/**
 * The value below which a fraction `q` of `values` lies (nearest rank).
 * @param {number[]} values
 * @param {number} q
 */
export const percentile = (values, q) =>
  ranked(values, (length) => Math.min(length - 1, Math.max(0, Math.ceil(q * length) - 1)));

/** @param {autocannon.Options} options */
export const load = (options) => autocannon({ connections: 10, ...options });

/**
 * Resident memory of a process, in bytes.
 * @param {number} pid
 */
export function rssOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

/**
 * A small error envelope for `dsn`, as a browser would post it to the tunnel.
 * @param {string} dsn
 */
export function envelopeFor(dsn, message = 'tunnel throughput') {
  return [
    JSON.stringify({ event_id: 'b'.repeat(32), dsn }),
    JSON.stringify({ type: 'event' }),
    JSON.stringify({ message, platform: 'javascript' }),
  ].join('\n');
}

/** @typedef {{ perSecond: number, p50: number, p99: number, non2xx: number }} TunnelRun */

/**
 * Envelopes per second through a tunnel at `url` for 5 s, with its latency.
 * @param {string} url
 * @param {string} envelope
 * @returns {Promise<TunnelRun>}
 */
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

/**
 * Medians of several tunnel runs.
 * @param {TunnelRun[]} runs
 * @returns {TunnelRun}
 */
export function summariseRuns(runs) {
  return {
    perSecond: median(runs.map((entry) => entry.perSecond)),
    p50: median(runs.map((entry) => entry.p50)),
    p99: median(runs.map((entry) => entry.p99)),
    non2xx: runs.reduce((sum, entry) => sum + entry.non2xx, 0),
  };
}
