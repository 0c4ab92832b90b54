import { refuseBadActionRequest } from '@/lib/security/action-guard';

function actionRequest(body: BodyInit): Request {
  return new Request('http://app.test/sentry-example-page', {
    method: 'POST',
    headers: { host: 'app.test', origin: 'http://app.test', 'content-type': 'text/plain;charset=UTF-8' },
    body,
    duplex: 'half',
  } as RequestInit);
}

describe('refuseBadActionRequest', () => {
  it('lets well-formed arguments through to Next', async () => {
    expect(await refuseBadActionRequest(actionRequest('["a"]'))).toBeUndefined();
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
