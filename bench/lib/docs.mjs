// Deterministic document generator for the benchmark database. Documents look like a small SaaS
// app's data (customers, orders, events): repeated vocabulary (compressible like real data), ids,
// dates, nested objects and arrays, plus a random token per document (incompressible), about
// 1 KiB of BSON each on average.
import { BSON } from 'mongodb';

const { ObjectId, Long } = BSON;

/** xorshift32: fast, seedable, good enough for test data. */
export function rng(seed) {
  let x = seed >>> 0 || 0x9e3779b9;
  const next = () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
    bytes: (n) => {
      const b = Buffer.allocUnsafe(n);
      for (let i = 0; i < n; i += 4) b.writeUInt32LE((next() * 0x100000000) >>> 0, Math.min(i, n - 4));
      return b;
    },
  };
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Linus',
  'Margaret',
  'Ken',
  'Barbara',
  'Dennis',
  'Frances',
  'Edsger',
  'Radia',
  'John',
  'Hedy',
  'Tim',
  'Sophie',
  'Donald',
  'Katherine',
  'Niklaus',
  'Jean',
  'Bjarne',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Torvalds',
  'Hamilton',
  'Thompson',
  'Liskov',
  'Ritchie',
  'Allen',
  'Dijkstra',
  'Perlman',
  'McCarthy',
  'Lamarr',
  'Berners-Lee',
  'Wilson',
  'Knuth',
  'Johnson',
  'Wirth',
  'Sammet',
  'Stroustrup',
];
const CITIES = [
  'Berlin',
  'Lisbon',
  'Austin',
  'Nairobi',
  'Osaka',
  'Toronto',
  'Lyon',
  'Krakow',
  'Porto',
  'Denver',
  'Seoul',
  'Auckland',
  'Bogota',
  'Tallinn',
  'Dublin',
];
const PRODUCTS = [
  'espresso beans',
  'french press',
  'grinder',
  'milk frother',
  'pour-over kit',
  'kettle',
  'decaf blend',
  'cold brew jar',
  'travel mug',
  'filter papers',
  'scale',
  'tamper',
];
const STATUSES = ['pending', 'paid', 'shipped', 'delivered', 'refunded', 'cancelled'];
const EVENTS = ['login', 'logout', 'view', 'click', 'search', 'add_to_cart', 'checkout', 'error'];
const WORDS = (
  'the customer asked about delivery times and whether the order could be split into two ' +
  'shipments because part of it is a gift please call before noon the package arrived damaged and ' +
  'needs a replacement thanks for the quick support great product will order again'
).split(' ');

const sentence = (r, n) => Array.from({ length: n }, () => r.pick(WORDS)).join(' ');
const BASE = Date.UTC(2025, 0, 1);

/** Document `i` of collection `kind`; the same (seed, kind, i) always gives the same document. */
export function makeDoc(kind, i, r) {
  const id = new ObjectId(
    Buffer.concat([
      Buffer.from([kind.charCodeAt(0), 0, 0, 0]),
      r.bytes(4),
      Buffer.from([(i >>> 24) & 255, (i >>> 16) & 255, (i >>> 8) & 255, i & 255]),
    ]),
  );
  const first = r.pick(FIRST);
  const last = r.pick(LAST);
  const when = new Date(BASE + r.int(300 * 86400) * 1000);
  switch (kind) {
    case 'customers':
      return {
        _id: id,
        seq: i,
        name: `${first} ${last}`,
        email: `${first}.${last}.${i}@example.com`.toLowerCase(),
        createdAt: when,
        plan: r.pick(['free', 'starter', 'pro', 'business']),
        address: {
          street: `${1 + r.int(200)} ${r.pick(LAST)} Street`,
          city: r.pick(CITIES),
          zip: String(10000 + r.int(89999)),
        },
        tags: Array.from({ length: 1 + r.int(4) }, () =>
          r.pick(['vip', 'newsletter', 'wholesale', 'beta', 'churn-risk']),
        ),
        apiToken: r.bytes(24).toString('base64url'),
        avatar: new BSON.Binary(r.bytes(64 + r.int(128))),
        notes: sentence(r, 20 + r.int(60)),
        active: r.next() < 0.8,
        balance: Long.fromNumber(r.int(1e9)),
      };
    case 'orders': {
      const items = Array.from({ length: 1 + r.int(6) }, () => ({
        sku: `SKU-${1000 + r.int(9000)}`,
        product: r.pick(PRODUCTS),
        qty: 1 + r.int(5),
        price: Math.round(r.next() * 10000) / 100,
      }));
      return {
        _id: id,
        seq: i,
        customer: { name: `${first} ${last}`, city: r.pick(CITIES) },
        status: r.pick(STATUSES),
        createdAt: when,
        updatedAt: new Date(when.getTime() + r.int(10 * 86400) * 1000),
        items,
        total: items.reduce((s, it) => s + it.qty * it.price, 0),
        paymentRef: r.bytes(16).toString('hex'),
        comment: sentence(r, 5 + r.int(40)),
        history: Array.from({ length: r.int(4) }, (_, k) => ({
          at: new Date(when.getTime() + k * 3600e3),
          status: r.pick(STATUSES),
        })),
      };
    }
    default:
      return {
        _id: id,
        seq: i,
        type: r.pick(EVENTS),
        at: when,
        user: `${first}.${last}`.toLowerCase(),
        session: r.bytes(12).toString('hex'),
        path: `/${r.pick(['shop', 'account', 'cart', 'search', 'blog'])}/${r.pick(PRODUCTS).replace(/ /g, '-')}`,
        ua: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36',
        durationMs: r.int(5000),
        payload: { query: sentence(r, 3 + r.int(8)), results: r.int(100), ok: r.next() < 0.95 },
        trace: r.bytes(32 + r.int(96)).toString('base64'),
      };
  }
}

/** The collections of the benchmark database and their share of the bytes. */
export const COLLECTIONS = [
  { name: 'customers', share: 0.3 },
  { name: 'orders', share: 0.45 },
  { name: 'events', share: 0.25 },
];

export const bsonSize = (doc) => BSON.calculateObjectSize(doc);
