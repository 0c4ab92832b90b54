import { refuseBadActionRequest } from '@/lib/security/action-guard';

function actionRequest(body: BodyInit): Request {
  const isForm = body instanceof FormData;
  return new Request('http://app.test/sentry-example-page', {
    method: 'POST',
    // A FormData body brings its own multipart type and boundary.
    headers: {
      host: 'app.test',
      origin: 'http://app.test',
      ...(isForm ? {} : { 'content-type': 'text/plain;charset=UTF-8' }),
    },
    body,
    duplex: 'half',
  } as RequestInit);
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
});
