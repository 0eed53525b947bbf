// Documents with every BSON type FerretDB stores (docs/architecture.md, "What FerretDB 1.x does not
// do"), shared by the agent's round-trip test and the end-to-end pipeline tests.
import { randomBytes } from 'node:crypto';
import { Binary, BSONRegExp, Double, Int32, Long, ObjectId, Timestamp, type Document } from 'mongodb';

/** The i-th document holding every BSON type FerretDB stores, with awkward values. */
export function everyType(i: number): Document {
  return {
    _id: new ObjectId(),
    seq: new Int32(i),
    double: new Double(i + 0.25),
    bigDouble: 1.7976931348623157e308,
    string: `ünïcode ✓ ${i} "quoted" \\ back`,
    emptyString: '',
    object: { nested: { deep: true, list: [1, 'two', { three: 3 }] } },
    array: [new Int32(1), 'two', new Double(3.5), null, { k: 'v' }],
    emptyArray: [],
    binGeneric: new Binary(Buffer.from([0, 1, 2, 255]), 0),
    binFunction: new Binary(Buffer.from('function'), 1),
    binOld: new Binary(Buffer.from('old binary'), 2),
    binUuidOld: new Binary(randomBytes(16), 3),
    binUuid: new Binary(randomBytes(16), 4),
    binMd5: new Binary(randomBytes(16), 5),
    binEncrypted: new Binary(randomBytes(20), 6),
    binColumn: new Binary(randomBytes(12), 7),
    binUser: new Binary(randomBytes(9), 128),
    oid: new ObjectId(),
    yes: true,
    no: false,
    date: new Date(Date.UTC(2024, 1, 29, 12, 30, 45, 123) + i),
    oldDate: new Date(-86_400_000 * 365 * 40),
    nothing: null,
    regex: new BSONRegExp('^coffer.*\\d+$', 'im'),
    int32: new Int32(-2_147_483_648 + i),
    timestamp: new Timestamp({ t: 1_700_000_000 + i, i: 7 }),
    int64: Long.fromString('9007199254740993'),
    negInt64: Long.fromNumber(-42 - i),
  };
}
