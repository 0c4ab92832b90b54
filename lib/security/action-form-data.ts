import busboy from 'busboy';
import { ACTION_BUSBOY_OPTIONS } from '../framework-internals.mjs';

/**
 * A server action's multipart body as Next reads one from React's client: with busboy, as Next's
 * action handler does, with its options (lib/framework-internals.mjs). `Response.formData()`
 * reads some bodies otherwise (a part's own charset, a part typed application/octet-stream without
 * a file name, a header given twice): checked that way, arguments Next then fails on would pass.
 * lib/framework-internals.test.ts holds this against Next's own copy of busboy. Rejects what busboy
 * cannot read, and a base64 part, which React refuses by throwing.
 */
export function actionFormData(body: ArrayBuffer, contentType: string, fieldSizeLimit: number): Promise<FormData> {
  return new Promise((resolve, reject) => {
    // In the order the parts came: React decodes them in that order, and the guard checks it.
    const parts: { name: string; value: string | Promise<Blob>; filename?: string }[] = [];
    const parser = busboy({
      ...ACTION_BUSBOY_OPTIONS,
      headers: { 'content-type': contentType },
      limits: { fieldSize: fieldSizeLimit },
    });
    parser.on('field', (name, value) => parts.push({ name, value }));
    parser.on('file', (name, stream, { filename, encoding, mimeType }) => {
      // A body cut short in a file's part fails the file's stream too: unheard, that error would be
      // the process's uncaught exception, and an error event.
      stream.on('error', reject);
      if (encoding.toLowerCase() === 'base64') {
        stream.resume();
        reject(new Error(`part ${name} is base64`));
        return;
      }
      const chunks: Uint8Array<ArrayBuffer>[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(new Uint8Array(chunk)));
      const value = new Promise<Blob>((read) => stream.on('end', () => read(new Blob(chunks, { type: mimeType }))));
      parts.push({ name, value, filename });
    });
    parser.on('close', () => {
      Promise.all(parts.map(({ value }) => value)).then((values) => {
        const form = new FormData();
        parts.forEach(({ name, filename }, index) => {
          const value = values[index] as string | Blob;
          if (typeof value === 'string') form.append(name, value);
          else form.append(name, value, filename);
        });
        resolve(form);
      }, reject);
    });
    parser.on('error', reject);
    parser.end(Buffer.from(body));
  });
}
