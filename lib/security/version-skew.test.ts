import { describe, expect, it } from 'vitest';
import { reloadIntoThisDeployment } from '@/lib/security/version-skew';

function actionPost(url: string, headers: Record<string, string>): Request {
  return new Request(url, { method: 'POST', headers: { 'next-action': 'a'.repeat(42), ...headers } });
}

describe('reloadIntoThisDeployment', () => {
  it('lets an action from this deployment through', () => {
    expect(reloadIntoThisDeployment(actionPost('http://app/about', { 'x-deployment-id': 'b' }), 'b')).toBeUndefined();
  });

  it('tells a browser holding another deployment’s page to reload that page', () => {
    const response = reloadIntoThisDeployment(actionPost('http://app/errors?x=1', { 'x-deployment-id': 'a' }), 'b');
    expect(response?.status).toBe(409);
    expect(response?.headers.get('x-action-redirect')).toBe('/errors?x=1;replace');
    expect(response?.headers.get('location')).toBeNull();
  });

  it('keeps a semicolon in the page’s query from cutting the reload address short', () => {
    const response = reloadIntoThisDeployment(actionPost('http://app/s?a=1;b=2', { 'x-deployment-id': 'a' }), 'b');
    expect(response?.headers.get('x-action-redirect')).toBe('/s?a=1%3Bb=2;replace');
  });

  it('lets a request that names no deployment through, as a form posted without JavaScript', () => {
    expect(reloadIntoThisDeployment(actionPost('http://app/about', {}), 'b')).toBeUndefined();
  });

  it('does nothing when the build has no deployment id', () => {
    expect(
      reloadIntoThisDeployment(actionPost('http://app/about', { 'x-deployment-id': 'a' }), undefined),
    ).toBeUndefined();
  });
});
