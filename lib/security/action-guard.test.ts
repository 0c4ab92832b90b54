import { refuseBadActionRequest } from '@/lib/security/action-guard';

function actionRequest(body: BodyInit): Request {
  const isForm = body instanceof FormData;
  return new Request('http://app.test/sentry-example-page', {
    method: 'POST',
    // A FormData body brings its own multipart type and boundary.
    headers: {
      host: 'app.test',
      origin: 'http://app.test',
      'next-action': '00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00',
      ...(isForm ? {} : { 'content-type': 'text/plain;charset=UTF-8' }),
    },
    body,
    duplex: 'half',
  } as RequestInit);
}

/** An action request whose multipart body, boundary `x`, is written by hand. */
function multipartActionRequest(body: string): Request {
  const request = actionRequest(body);
  request.headers.set('content-type', 'multipart/form-data; boundary=x');
  return request;
}

/** A form posted before hydration: multipart, its action named in its fields, no action header. */
function formPost(body: string, headers: Record<string, string> = {}): Request {
  return new Request('http://app.test/status', {
    method: 'POST',
    headers: { host: 'app.test', 'content-type': 'multipart/form-data; boundary=x', ...headers },
    body,
  });
}

function form(entries: [string, string][]): FormData {
  const body = new FormData();
  for (const [key, value] of entries) body.append(key, value);
  return body;
}

describe('refuseBadActionRequest', () => {
  it('lets well-formed arguments through to Next', async () => {
    expect(await refuseBadActionRequest(actionRequest('["a"]'))).toBeUndefined();
  });

  it("lets through a multipart body as React's client writes a closure's encrypted arguments", async () => {
    expect(
      await refuseBadActionRequest(
        actionRequest(
          form([
            ['1', '"c2VhbGVk"'],
            ['0', '["$@1"]'],
          ]),
        ),
      ),
    ).toBeUndefined();
  });

  it('answers 400 naming the problem when the arguments are not a list, or refer to a part the body lacks', async () => {
    for (const [body, problem] of [
      ['null', 'the arguments are not a list'],
      ['["$@1"]', 'part 1 is missing or not text'],
      [
        form([
          ['0', '["$@1"]'],
          ['1', '{not JSON'],
        ]),
        'part 1 is not JSON',
      ],
    ] as const) {
      const response = await refuseBadActionRequest(actionRequest(body));
      expect(response?.status).toBe(400);
      expect(await response?.text()).toBe(`Malformed server action arguments: ${problem}`);
    }
  });

  it('answers 400 for a base64 part, which React throws on as Next reads the body', async () => {
    const body =
      '--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$B1"]\r\n' +
      '--x\r\nContent-Disposition: form-data; name="1"; filename="f"\r\nContent-Transfer-Encoding: base64\r\n\r\neA==\r\n--x--\r\n';
    const response = await refuseBadActionRequest(multipartActionRequest(body));
    expect([response?.status, await response?.text()]).toEqual([400, 'Malformed server action arguments']);
  });

  it('answers 400 for a body cut short inside a file part, and leaves no error unheard', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    try {
      const body =
        '--x\r\nContent-Disposition: form-data; name="0"\r\n\r\n["$B1"]\r\n' +
        '--x\r\nContent-Disposition: form-data; name="1"; filename="f"\r\n\r\nabc';
      const response = await refuseBadActionRequest(multipartActionRequest(body));
      expect([response?.status, await response?.text()]).toEqual([400, 'Malformed server action arguments']);
      await new Promise((resolve) => setImmediate(resolve));
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('answers 400, not a thrown error, when the body stops arriving (client gone, request timeout)', async () => {
    const cut = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('["a'));
        controller.error(new Error('aborted'));
      },
    });
    const response = await refuseBadActionRequest(actionRequest(cut));
    expect(response?.status).toBe(400);
    expect(await response?.text()).toBe('The server action body did not arrive');
  });

  it("lets a form posted before hydration through with its own fields, which are not React's argument list", async () => {
    const fields = '--x\r\nContent-Disposition: form-data; name="$ACTION_ID_00ff"\r\n\r\n\r\n--x--\r\n';
    expect(await refuseBadActionRequest(formPost(fields))).toBeUndefined();
  });

  it('answers a form post Next would fail on with a 4xx: a body that is not multipart, another site, compressed', async () => {
    for (const [request, status] of [
      [formPost('garbage'), 400],
      [formPost('--x--', { 'content-type': 'multipart/form-data' }), 400],
      [formPost('--x--\r\n', { origin: 'https://evil.example' }), 403],
      [formPost('--x--\r\n', { 'content-encoding': 'gzip' }), 415],
    ] as const) {
      expect((await refuseBadActionRequest(request))?.status).toBe(status);
    }
  });
});
