import { agentHandshakeSchema } from './agent/handshake.js';
import { articleFields } from './kb.js';
import { displayText, UNSAFE_TEXT_RULE } from './text.js';

// NUL, a tab, ESC, DEL, a C1 control, and the bidi overrides/isolates that make 'exe.txt' display
// as 'txt.exe' (U+202E) in a list.
const unsafe = [
  'a\u0000b',
  'a\tb',
  'a\u001bb',
  'a\u007fb',
  'a\u0085b',
  'inv\u202Etxt.exe',
  'a\u202Ab',
  'a\u2066b',
  'a\u2069b',
];

describe('display text (names and titles)', () => {
  it('refuses control characters and text-direction overrides, with the rule as message', () => {
    const name = displayText('Name');
    for (const s of unsafe) {
      const r = name.safeParse(s);
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toBe(`Name ${UNSAFE_TEXT_RULE}`);
    }
  });

  it('keeps ordinary text of any script, right-to-left included', () => {
    for (const s of ['Ada Lovelace', 'Zoë', '日本語', 'שלום', 'مرحبا', 'emoji 🚀', 'tab-free name'])
      expect(displayText('Name').parse(s)).toBe(s);
  });

  it('is the rule of agent names (handshake) and article titles', () => {
    const handshake = { apiKey: 'cof_x', instanceId: '12345678-aaaa', name: 'web\u202E1' };
    expect(agentHandshakeSchema.safeParse(handshake).success).toBe(false);
    expect(agentHandshakeSchema.safeParse({ ...handshake, name: 'web-1' }).success).toBe(true);
    expect(articleFields.title.safeParse('Setup\u0000').success).toBe(false);
    expect(articleFields.title.safeParse('Setup').success).toBe(true);
  });
});
