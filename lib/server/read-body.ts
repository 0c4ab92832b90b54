import 'server-only';

export class BodyTooLargeError extends Error {}

/** The body did not arrive within its deadline: a client too slow to keep a connection for. */
export class BodyTimeoutError extends Error {}

type BodySource = {
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array> | null;
};

/**
 * Reads at most `maxBytes` of the body, without buffering past the cap, and within `deadlineMs`
 * from the call. Past the cap the stream is left (cancelled); past the deadline it is abandoned,
 * unread, so the caller can still answer before the connection closes.
 */
export async function readBodyCapped(request: BodySource, maxBytes: number, deadlineMs: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    throw new BodyTooLargeError();
  }
  if (request.body === null) return new Uint8Array();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BodyTimeoutError()), deadlineMs);
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  const iterator = request.body[Symbol.asyncIterator]();
  try {
    for (;;) {
      const next = iterator.next();
      // Abandoned at the deadline, the read settles when the connection closes: nobody waits.
      next.catch(() => undefined);
      const { done, value } = await Promise.race([next, deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        // Cancels the stream: nothing past the cap is read.
        await iterator.return?.();
        throw new BodyTooLargeError();
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}
