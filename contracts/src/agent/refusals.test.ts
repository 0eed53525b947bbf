import { CONNECT_REFUSAL_CODES, connectRefusal, refusalCodeOf } from './refusals.js';

describe('connect refusals', () => {
  it('carry their code in `data`, where socket.io-client hands it to the agent', () => {
    for (const code of CONNECT_REFUSAL_CODES) {
      const err = connectRefusal(code, 'why');
      expect(err).toBeInstanceOf(Error);
      expect(err.message).toBe('why');
      expect(err.data).toEqual({ code });
      // What the client sees: an Error with the server's message and data.
      expect(refusalCodeOf(Object.assign(new Error('why'), { data: err.data }))).toBe(code);
    }
  });

  it('have no code when the error is not a refusal (transport trouble, an older gateway, nonsense)', () => {
    expect(refusalCodeOf(new Error('websocket error'))).toBeUndefined();
    expect(
      refusalCodeOf(Object.assign(new Error('x'), { data: { code: 'SOMETHING_ELSE' } })),
    ).toBeUndefined();
    expect(refusalCodeOf(Object.assign(new Error('x'), { data: 'INVALID_API_KEY' }))).toBeUndefined();
    expect(refusalCodeOf(undefined)).toBeUndefined();
    expect(refusalCodeOf(null)).toBeUndefined();
  });
});
