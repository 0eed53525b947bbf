// Who may import whom (docs/engineering.md, "Import boundaries"), as one ESLint rule that knows the
// tree: an import is resolved to the part of the repository it lands in, whether it is written as
// a package name (`@coffer/common`) or as a relative path that climbs out of its package.
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

const PACKAGES = {
  '@coffer/contracts': 'contracts',
  '@coffer/proto': 'proto',
  '@coffer/common': 'services/common',
  '@coffer/local-stack': 'deploy/local',
};
for (const s of ['auth', 'notification', 'audit', 'backup-orchestrator', 'storage', 'kb', 'gateway']) {
  PACKAGES[`@coffer/${s}`] = `services/${s}`;
}

/** The part of the tree a repository-relative path belongs to, e.g. `service:auth`, `web`. */
function partOf(rel) {
  const [top, second] = rel.split('/');
  if (top === 'services') return second === 'common' ? 'common' : `service:${second}`;
  if (top === 'deploy' && second === 'local') return 'local-stack';
  return top;
}

/** Test code: tests, fakes, test worlds and testing folders, which may reach the local stack kit. */
function isTestCode(rel) {
  return (
    /\.test\.tsx?$/.test(rel) ||
    /(^|\/)(test-world|fake)\.ts$/.test(rel) ||
    /\.fake\.ts$/.test(rel) ||
    /\/testing\//.test(rel)
  );
}

/** What shipped code of each part may import besides itself. */
const ALLOWED = {
  contracts: [],
  proto: [],
  common: ['contracts', 'proto'],
  agent: ['contracts'],
  web: ['contracts'],
  'local-stack': [],
};
const SERVICE_ALLOWED = ['contracts', 'proto', 'common'];

function allowedFor(from, testCode) {
  const base = from.startsWith('service:') ? SERVICE_ALLOWED : ALLOWED[from];
  if (!base) return undefined; // tests, bench, scripts, deploy tooling: unrestricted
  return testCode ? [...base, 'local-stack'] : base;
}

function targetOf(spec, fileRel) {
  if (spec.startsWith('.')) {
    const abs = path.resolve(ROOT, path.dirname(fileRel), spec);
    return partOf(path.relative(ROOT, abs));
  }
  const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
  const dir = PACKAGES[pkg];
  return dir ? partOf(dir) : undefined; // a third-party package
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Keep each part of the tree to the imports docs/engineering.md allows' },
    schema: [],
    messages: {
      forbidden: '{{from}} may not import {{to}} ({{spec}}): see docs/engineering.md, "Import boundaries".',
    },
  },
  create(context) {
    const fileRel = path.relative(ROOT, context.filename);
    const from = partOf(fileRel);
    const allowed = allowedFor(from, isTestCode(fileRel));
    if (!allowed) return {};
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      const to = targetOf(spec, fileRel);
      if (to === undefined || to === from || allowed.includes(to)) return;
      context.report({ node, messageId: 'forbidden', data: { from, to, spec } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
    };
  },
};

export default { rules: { 'import-boundaries': rule } };
