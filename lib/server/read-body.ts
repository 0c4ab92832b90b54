import 'server-only';

export class BodyTooLargeError extends Error {}

type BodySource = {
  headers: { get(name: string): string | null };
  body: AsyncIterable<Uint8Array> | null;
};

/** Reads at most `maxBytes` of the body, without buffering past the cap. */
export async function readBodyCapped(request: BodySource, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) {
    throw new BodyTooLargeError();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  // Leaving the loop early (the throw) cancels the stream: nothing past the cap is read.
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      throw new BodyTooLargeError();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}
