import type { FastifyInstance } from 'fastify';
import { type Method, showBody, type TryResult, type TryState } from '../domain/try-it.ts';

/**
 * "Try it": the call, made in-process (`app.inject`) with the pasted key, which is used for this one
 * call and neither stored nor logged.
 */
export async function callSandbox(app: FastifyInstance, state: TryState, url: string): Promise<TryResult> {
  const withBody = state.method !== 'GET' && state.method !== 'DELETE' && (state.body ?? '').trim() !== '';
  const response = await app.inject({
    method: state.method as Method,
    url,
    headers: {
      // The extra headers first: none of them can replace what the form's own fields set.
      ...Object.fromEntries((state.headers ?? []).map((header) => [header.name.toLowerCase(), header.value])),
      'ocp-apim-subscription-key': state.key ?? '',
      accept: 'application/json, */*;q=0.5',
      ...(state.token ? { authorization: `Bearer ${state.token}` } : {}),
      ...(withBody ? { 'content-type': 'application/json' } : {}),
    },
    ...(withBody ? { payload: state.body } : {}),
  });
  return {
    url,
    sent: state.headers ?? [],
    status: response.statusCode,
    headers: response.headers as Record<string, unknown>,
    body: showBody(response.body, String(response.headers['content-type'] ?? '')),
  };
}
