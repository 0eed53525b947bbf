"""Would `npm ci` (deploy/Dockerfile) accept package-lock.json? Offline.

npm ci refuses a lockfile in which a locked package's dependency has no entry, and that happens
to other platforms' optional binaries (e.g. @swc/core-darwin-arm64) when the lockfile was written
against a registry that lacked them: `npm install` quietly leaves them out, `npm ci` then fails
with "Missing: ... from lock file". This walks the lockfile the way npm resolves it and lists
every such hole.

  python3 deploy/ci/check-lockfile.py [package-lock.json]
  python3 deploy/ci/check-lockfile.py --parents [package-lock.json]   # name@version of each package with a hole
"""

import json
import sys
from pathlib import Path


def resolve(packages, location, name):
    """npm's lookup: <location>/node_modules/<name>, then each enclosing node_modules, then the root."""
    base = location
    while True:
        candidate = f'{base}/node_modules/{name}' if base else f'node_modules/{name}'
        if candidate in packages:
            return candidate
        if not base:
            return None
        i = base.rfind('/node_modules/')
        base = base[:i] if i >= 0 else ''


def main():
    args = sys.argv[1:]
    parents_only = '--parents' in args
    args = [a for a in args if a != '--parents']
    lock_path = Path(args[0] if args else 'package-lock.json')
    packages = json.loads(lock_path.read_text())['packages']
    missing = {}
    for location, pkg in packages.items():
        if pkg.get('link'):
            continue
        is_project = location == '' or not location.startswith('node_modules/') and '/node_modules/' not in location
        groups = ['dependencies', 'optionalDependencies'] + (['devDependencies'] if is_project else [])
        for group in groups:
            for name in pkg.get(group) or {}:
                if resolve(packages, location, name) is None:
                    missing.setdefault(location or '(root)', []).append(name)
    if parents_only:
        for location in sorted(missing):
            name = location.rsplit('node_modules/', 1)[-1]
            print(f'{name}@{packages[location]["version"]}')
        return
    for location, names in sorted(missing.items()):
        print(f'  {location}: {len(names)} missing: {", ".join(sorted(names))}')
    if missing:
        print(f'{lock_path}: npm ci would refuse it (Missing: ... from lock file); see docs/operations.md, "Images"')
        sys.exit(1)
    print(f'{lock_path}: every locked dependency has an entry (npm ci accepts it)')


if __name__ == '__main__':
    main()
