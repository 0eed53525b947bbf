import { describeUri, parseMongoUri, toolUri, uriSecrets } from './uri.js';

describe('parseMongoUri', () => {
  it('reads credentials, hosts, database and options', () => {
    const p = parseMongoUri(
      'mongodb://app%40corp:p%3Ass%2Fw0rd@db1:27017,db2:27018/shop?replicaSet=rs0&tls=true',
    );
    expect(p).toMatchObject({
      scheme: 'mongodb',
      username: 'app@corp',
      password: 'p:ss/w0rd',
      hosts: 'db1:27017,db2:27018',
      database: 'shop',
      options: [
        ['replicaSet', 'rs0'],
        ['tls', 'true'],
      ],
    });
  });

  it('accepts srv URIs, no credentials and no database', () => {
    expect(parseMongoUri('mongodb+srv://cluster0.example.net/')).toMatchObject({
      scheme: 'mongodb+srv',
      username: undefined,
      database: undefined,
    });
    expect(parseMongoUri('mongodb://localhost').database).toBeUndefined();
    expect(parseMongoUri('mongodb://localhost/%C3%BCn%C3%AFcode').database).toBe('ünïcode');
  });

  it.each(['postgres://x/y', 'localhost:27017', 'mongodb://', 'mongodb://u:p@/db', 'mongodb://u:%zz@h/db'])(
    'rejects %s',
    (s) => {
      expect(() => parseMongoUri(s)).toThrow();
    },
  );
});

describe('toolUri', () => {
  it('drops the path database and authenticates where the original URI would', () => {
    expect(toolUri('mongodb://u:p@h:1/shop')).toBe('mongodb://u:p@h:1/?authSource=shop');
    expect(toolUri('mongodb://u:p@h:1/')).toBe('mongodb://u:p@h:1/?authSource=admin');
    expect(toolUri('mongodb://u:p@h:1/shop?authSource=users&tls=true')).toBe(
      'mongodb://u:p@h:1/?authSource=users&tls=true',
    );
  });

  it('leaves credential-less URIs without authSource', () => {
    expect(toolUri('mongodb://h1,h2/shop?replicaSet=rs')).toBe('mongodb://h1,h2/?replicaSet=rs');
    expect(toolUri('mongodb+srv://c.example.net/db')).toBe('mongodb+srv://c.example.net/');
  });
});

describe('uriSecrets / describeUri', () => {
  it('lists the URI and the password in raw and encoded forms', () => {
    const s = uriSecrets('mongodb://u:p%40ss@h/db');
    expect(s).toEqual(expect.arrayContaining(['mongodb://u:p%40ss@h/db', 'p@ss', 'p%40ss']));
  });

  it('describes a URI by its hosts only', () => {
    expect(describeUri('mongodb://u:secret@h1:1,h2:2/db?x=y')).toBe('mongodb://h1:1,h2:2');
  });
});
