"""Coffer's deployment rules, checked offline against what the real tools produce.

  policy.py context FILE_LIST         files `docker build .` would send (deploycheck context)
  policy.py dockerfile                deploy/Dockerfile against the services in the tree
  policy.py compose PROJECT_JSON      the compose project as the Compose loader resolved it
  policy.py k8s OVERLAY RENDERED_YAML an overlay as `kustomize build` rendered it

Each prints one line per problem and exits 1 if there was any. What a service reads is taken
from its own config (services/<name>/src/config.ts and services/common's baseEnv), so a setting
given to a service that does not read it, or a setting it needs and does not get, is caught here
when either side changes.
"""

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Settings the deployment already passes for code changes requested from services/common (see
# docs/operations.md, "Pending code changes"). A service does not read them yet; zod drops them.
PENDING = {}
# Values that must never be written into a manifest or have a default in the compose file.
SECRET_KEYS = {
    'JWT_SECRET', 'API_KEY_PEPPER', 'TOTP_ENCRYPTION_KEY', 'COFFER_ADMIN_EMAIL', 'COFFER_ADMIN_PASSWORD', 'MONGODB_URI',
    'REDIS_URL', 'S3_ACCESS_KEY_ID', 'S3_SECRET_ACCESS_KEY', 'SMTP_USER', 'SMTP_PASS',
    'SERVICE_PRIVATE_KEY',
}
OPS_PORT = 9100

problems = []


def problem(msg):
    problems.append(msg)


def finish(what):
    for p in problems:
        print(f'  {p}')
    if problems:
        print(f'{what}: {len(problems)} problem(s)')
        sys.exit(1)
    print(f'{what}: ok')


# ---- What the code reads ----------------------------------------------------------------------

def services():
    """Every service with a process of its own: services/<name>/src/main.ts, common excluded."""
    return sorted(p.parent.parent.name for p in ROOT.glob('services/*/src/main.ts'))


def _keys(text):
    text = re.sub(r'/\*.*?\*/', '', text, flags=re.S)
    text = re.sub(r'^\s*//.*$', '', text, flags=re.M)
    return set(re.findall(r'^\s+([A-Z][A-Z0-9_]*)\s*:', text, flags=re.M))


def base_env_keys():
    text = (ROOT / 'services/common/src/config.ts').read_text()
    m = re.search(r'export const baseEnv\s*=\s*\{(.*?)\n\};', text, flags=re.S)
    if not m:
        problem('services/common/src/config.ts: baseEnv not found (update deploy/ci/policy.py)')
        return set()
    return _keys('\n' + m.group(1))


def env_keys(service):
    """The environment variables a service's config schema reads."""
    text = (ROOT / f'services/{service}/src/config.ts').read_text()
    keys = _keys(text)
    if '...baseEnv' in text:
        keys |= base_env_keys()
    return keys


def required_keys(service, keys):
    """What a deployment must set for the service: its defaults are the local run's values."""
    need = {'NODE_ENV', 'NATS_URL', 'OPS_PORT', 'OPS_HOST'}
    need |= {k for k in keys if k.endswith('_GRPC')}  # defaults point at 127.0.0.1
    if 'GRPC_LISTEN' in keys:
        # A gRPC server checks its callers' tokens against their public keys.
        need |= {'GRPC_LISTEN', 'MONGODB_URI', 'SERVICE_PUBLIC_KEYS'}
    if any(k.endswith('_GRPC') for k in keys):
        # A service that calls others signs its calls with its own key.
        need.add('SERVICE_PRIVATE_KEY')
    for k in ('JWT_SECRET', 'API_KEY_PEPPER', 'TOTP_ENCRYPTION_KEY', 'REDIS_URL', 'PUBLIC_URL', 'TRUST_PROXY', 'SMTP_HOST'):
        if k in keys:
            need.add(k)
    if service == 'gateway':
        need |= {'HOST', 'PORT', 'WEB_DIST', 'AGENT_DOWNLOADS_DIR'}
    return need


def check_service_env(where, service, env):
    """env: name -> value (None when it comes from a secret)."""
    keys = env_keys(service)
    for k in sorted(set(env) - keys):
        if k not in PENDING:
            problem(f'{where}: {k} is set but services/{service} does not read it')
    for k in sorted(required_keys(service, keys) - set(env)):
        problem(f'{where}: {k} is not set (the default is only right for the local run)')
    if env.get('NODE_ENV') not in (None, 'production'):
        problem(f'{where}: NODE_ENV={env["NODE_ENV"]}, expected production')
    if 'OPS_PORT' in env and env['OPS_PORT'] is not None and str(env['OPS_PORT']) != str(OPS_PORT):
        problem(f'{where}: OPS_PORT={env["OPS_PORT"]}, the probes use {OPS_PORT}')
    if env.get('OPS_HOST') not in (None, '0.0.0.0'):
        problem(f'{where}: OPS_HOST must be 0.0.0.0 so probes reach the ops port')
    listen = env.get('GRPC_LISTEN')
    if listen is not None and not str(listen).startswith('0.0.0.0:'):
        problem(f'{where}: GRPC_LISTEN={listen} is not reachable from other containers')


def grpc_port(listen):
    return int(str(listen).rsplit(':', 1)[1])


# ---- Build context and Dockerfile -------------------------------------------------------------

def check_context(list_file):
    files = set(Path(list_file).read_text().split())
    forbidden = [
        (r'(^|/)node_modules(/|$)', 'installed dependencies'),
        (r'(^|/)\.coffer-data(/|$)', 'local run state (admin password, databases)'),
        (r'(^|/)\.git(/|$)', 'git metadata'),
        (r'(^|/)dist(/|$)', 'build output'),
        (r'\.tsbuildinfo$', 'build state'),
        (r'(^|/)\.env(\.|$)', 'an env file'),
        (r'\.(key|pem|p12|pfx)$', 'key material'),
    ]
    for f in sorted(files):
        for pattern, why in forbidden:
            if re.search(pattern, f):
                problem(f'build context holds {f} ({why}): add it to .dockerignore')
    root_pkg = json.loads((ROOT / 'package.json').read_text())
    needed = ['package.json', 'package-lock.json', '.npmrc', 'tsconfig.base.json', 'deploy/Dockerfile',
              'agent/scripts/build-binaries.mjs', 'web/index.html']
    needed += [f'{w}/package.json' for w in root_pkg.get('workspaces', [])]
    needed += [f'services/{s}/src/main.ts' for s in services()]
    for f in needed:
        if (ROOT / f).exists() and f not in files:
            problem(f'build context lacks {f}: .dockerignore excludes it')


def check_dockerfile():
    text = (ROOT / 'deploy/Dockerfile').read_text()
    stages = set(re.findall(r'^FROM\s+\S+\s+AS\s+(\S+)', text, flags=re.M | re.I))
    for ref in re.findall(r'--from=(\S+)', text):
        if ref not in stages:
            problem(f'deploy/Dockerfile: COPY --from={ref}: no such stage')
    for target in ('service', 'gateway'):
        if target not in stages:
            problem(f'deploy/Dockerfile: target {target} is missing (compose and build-images.sh use it)')
    m = re.search(r'case "\$\{SERVICE\}" in\s*\\?\s*\n\s*([\w|-]+)\)', text)
    listed = set(m.group(1).split('|')) if m else set()
    if listed != set(services()):
        problem(f'deploy/Dockerfile: SERVICE accepts {sorted(listed)}, the tree has {services()}')
    # Every workspace package a service imports at run time is copied into its image.
    root_pkg = json.loads((ROOT / 'package.json').read_text())
    dirs = {json.loads((ROOT / w / 'package.json').read_text())['name']: w
            for w in root_pkg.get('workspaces', []) if (ROOT / w / 'package.json').exists()}
    for svc in services():
        todo, needed = [f'services/{svc}'], set()
        while todo:
            deps = json.loads((ROOT / todo.pop() / 'package.json').read_text()).get('dependencies', {})
            for dep in deps:
                if dep in dirs and dirs[dep] not in needed:
                    needed.add(dirs[dep])
                    todo.append(dirs[dep])
        for d in sorted(needed):
            if f'COPY --from=build /app/{d}/dist/ {d}/dist/' not in text:
                problem(f'deploy/Dockerfile: services/{svc} needs {d}/dist, which the service stage does not copy')
    if re.search(r'npm (install|i)\b', text):
        problem('deploy/Dockerfile: npm install; use npm ci (installs exactly package-lock.json)')
    users = re.findall(r'^USER\s+(\S+)', text, flags=re.M)
    if not users or users[-1].split(':')[0] in ('root', '0'):
        problem('deploy/Dockerfile: the images must run as a non-root user')


# ---- docker-compose.yml -----------------------------------------------------------------------

def migrating_services():
    """Services with a database: their image has a migrate step (services/<name>/src/migrate.ts)."""
    return [s for s in services() if (ROOT / f'services/{s}/src/migrate.ts').exists()]


def check_compose_migrate(where, name, svcs):
    """<service>-migrate: the service's image running its migrate step once, before the service."""
    svc, target = svcs[name], svcs.get(name[: -len('-migrate')]) or {}
    if svc.get('command') != ['node', 'dist/migrate.js']:
        problem(f'{where}: command is not [node, dist/migrate.js]')
    if svc.get('restart') not in (None, 'no'):
        problem(f'{where}: a one-shot step must not restart')
    if svc.get('image') != target.get('image'):
        problem(f'{where}: image {svc.get("image")} is not the service\'s {target.get("image")}')
    env = svc.get('environment') or {}
    for k in sorted(set(env) - {'LOG_LEVEL', 'MONGODB_URI'}):
        problem(f'{where}: {k} is set but the migrate step reads only LOG_LEVEL and MONGODB_URI')
    if env.get('MONGODB_URI') != (target.get('environment') or {}).get('MONGODB_URI'):
        problem(f'{where}: MONGODB_URI differs from the service\'s')
    dep = (target.get('depends_on') or {}).get(name) or {}
    if dep.get('condition') != 'service_completed_successfully':
        problem(f'{where}: the service does not wait for it (depends_on: service_completed_successfully)')


def compose_service_name(name):
    """gateway-1 -> gateway; auth -> auth; mongo -> None."""
    base = re.sub(r'-\d+$', '', name)
    return base if base in services() else None


def check_compose(project_file, sentinels_file):
    project = json.loads(Path(project_file).read_text())
    sentinels = json.loads(Path(sentinels_file).read_text())
    svcs = project.get('services', {})
    seen = set()
    for name, svc in sorted(svcs.items()):
        where = f'docker-compose.yml: {name}'
        if name.endswith('-migrate') and name[: -len('-migrate')] in migrating_services():
            check_compose_migrate(where, name, svcs)
            continue
        hc = svc.get('healthcheck') or {}
        if not hc.get('test') or hc.get('disable'):
            problem(f'{where}: no healthcheck')
        ports = svc.get('ports') or []
        coffer = compose_service_name(name)
        if coffer is None:
            for p in ports:
                if name != 'proxy' and p.get('host_ip') not in ('127.0.0.1', '::1'):
                    problem(f'{where}: publishes port {p.get("target")} beyond this host')
            continue
        seen.add(coffer)
        if ports:
            problem(f'{where}: publishes a port; only the proxy is reachable from outside')
        build = svc.get('build')
        if build:
            if build.get('dockerfile') != 'deploy/Dockerfile':
                problem(f'{where}: built from {build.get("dockerfile")}, not deploy/Dockerfile')
            if (build.get('args') or {}).get('SERVICE') != coffer:
                problem(f'{where}: build arg SERVICE is not {coffer}')
            want = 'gateway' if coffer == 'gateway' else 'service'
            if build.get('target') != want:
                problem(f'{where}: build target {build.get("target")}, expected {want}')
        elif not any(compose_service_name(o) == coffer and svcs[o].get('build') for o in svcs):
            problem(f'{where}: its image is built by no service')
        test = ' '.join(hc.get('test') or [])
        if '/readyz' not in test or str(OPS_PORT) not in test:
            problem(f'{where}: the healthcheck must ask /readyz on the ops port {OPS_PORT}')
        env = svc.get('environment') or {}
        check_service_env(where, coffer, {k: v for k, v in env.items()})
        # A secret must come from .env: its value is the sentinel the check put there.
        for k, v in env.items():
            if k in SECRET_KEYS and v is not None and not any(s in v for s in sentinels.values()):
                problem(f'{where}: {k} has a value that does not come from .env (a default?)')
        for k, v in env.items():
            if k.endswith('_GRPC') and v:
                host, port = v.rsplit(':', 1)
                target = svcs.get(host)
                listen = (target or {}).get('environment', {}).get('GRPC_LISTEN')
                if not target or not listen or grpc_port(listen) != int(port):
                    problem(f'{where}: {k}={v} does not reach a gRPC server of this stack')
    for s in sorted(set(services()) - seen):
        problem(f'docker-compose.yml: service {s} is missing')
    for s in migrating_services():
        if f'{s}-migrate' not in svcs:
            problem(f'docker-compose.yml: no {s}-migrate step (services/{s} has a database)')
    nats = ' '.join(svcs.get('nats', {}).get('command') or [])
    if not re.search(r'(^|\s)(-js|--jetstream)(\s|$)', nats):
        problem('docker-compose.yml: nats runs without JetStream')
    # The proxy's backend lists exactly the compose gateways.
    cfg = (ROOT / 'deploy/compose/haproxy.cfg').read_text()
    servers = set(re.findall(r'^\s*server\s+\S+\s+([\w.-]+):8080\b', cfg, flags=re.M))
    gateways = {n for n in svcs if compose_service_name(n) == 'gateway'}
    if servers != gateways:
        problem(f'deploy/compose/haproxy.cfg: servers {sorted(servers)} != compose gateways {sorted(gateways)}')
    if not re.search(r'^\s*cookie\s+\S+\s+insert', cfg, flags=re.M):
        problem('deploy/compose/haproxy.cfg: no cookie affinity (Socket.IO long-polling needs it)')


# ---- Kubernetes -------------------------------------------------------------------------------

def load_yaml_docs(path):
    import yaml  # the validators' venv has PyYAML
    return [d for d in yaml.safe_load_all(Path(path).read_text()) if d]


def _strict(schema):
    """A CRD's schema as the API server's strict field validation applies it: unknown fields fail."""
    if isinstance(schema, dict):
        schema = {k: _strict(v) for k, v in schema.items()}
        if 'properties' in schema and 'additionalProperties' not in schema \
                and not schema.get('x-kubernetes-preserve-unknown-fields'):
            schema['additionalProperties'] = False
    elif isinstance(schema, list):
        schema = [_strict(v) for v in schema]
    return schema


def crd_schemas():
    """(apiVersion, kind) -> JSON schema, from the CRDs deploy/ci/tools.sh fetched (COFFER_CRDS)."""
    import os
    out = {}
    for f in sorted(Path(os.environ.get('COFFER_CRDS', '/nonexistent')).glob('*.yaml')):
        for crd in load_yaml_docs(f):
            group, kind = crd['spec']['group'], crd['spec']['names']['kind']
            for v in crd['spec']['versions']:
                if v.get('served'):
                    schema = _strict(v['schema']['openAPIV3Schema'])
                    # metadata is the API server's to check (the CRD says only `type: object`).
                    out[(f'{group}/{v["name"]}', kind)] = schema
    return out


def validate_schemas(docs, versions):
    import kubernetes_validate
    import jsonschema
    crds = crd_schemas()
    for d in docs:
        schema = crds.get((d.get('apiVersion'), d.get('kind')))
        if schema is None:
            continue
        kn = f'{d.get("kind")}/{d.get("metadata", {}).get("name")}'
        for e in jsonschema.Draft7Validator(schema).iter_errors(d):
            path = '.'.join(str(p) for p in e.path)
            problem(f'{kn}: invalid for its CRD ({d["apiVersion"]}): {path}: {e.message}')
    for version in versions:
        for d in docs:
            if (d.get('apiVersion'), d.get('kind')) in crds:
                continue
            kn = f'{d.get("kind")}/{d.get("metadata", {}).get("name")}'
            try:
                kubernetes_validate.validate(d, version, strict=True)
            except kubernetes_validate.ValidationError as e:
                path = '.'.join(str(p) for p in e.path)
                problem(f'{kn}: invalid for Kubernetes {version}: {path}: {e.message}')
            except (kubernetes_validate.SchemaNotFoundError, kubernetes_validate.InvalidSchemaError) as e:
                problem(f'{kn}: no schema for Kubernetes {version}: {e.message}')


def selects(selector, labels):
    ml = (selector or {}).get('matchLabels') or {}
    return bool(ml) and all(labels.get(k) == v for k, v in ml.items())


def check_other_deployment(where, dep):
    """A helper beside the services (the NATS exporter): pinned, bounded, unprivileged."""
    pod = dep['spec']['template']['spec']
    if pod.get('automountServiceAccountToken') is not False:
        problem(f'{where}: mounts a service account token it never uses')
    if not (pod.get('securityContext') or {}).get('runAsNonRoot'):
        problem(f'{where}: runAsNonRoot is not set')
    for c in pod['containers']:
        image = c.get('image', '')
        if ':' not in image.rsplit('/', 1)[-1] or image.endswith(':latest'):
            problem(f'{where}: image {image} has no pinned tag')
        if 'memory' not in ((c.get('resources') or {}).get('limits') or {}):
            problem(f'{where}: no memory limit')
        sc = c.get('securityContext') or {}
        if sc.get('readOnlyRootFilesystem') is not True or sc.get('allowPrivilegeEscalation') is not False:
            problem(f'{where}: needs readOnlyRootFilesystem: true and allowPrivilegeEscalation: false')


def check_k8s(overlay, rendered, expect):
    docs = load_yaml_docs(rendered)
    validate_schemas(docs, expect['kubernetes_versions'])
    by_kind = {}
    for d in docs:
        by_kind.setdefault(d['kind'], []).append(d)
    cms = {d['metadata']['name']: d.get('data') or {} for d in by_kind.get('ConfigMap', [])}
    deployments = {d['metadata']['name']: d for d in by_kind.get('Deployment', [])}
    k8s_services = {d['metadata']['name']: d for d in by_kind.get('Service', [])}
    policies = by_kind.get('NetworkPolicy', [])
    where0 = f'k8s/overlays/{overlay}'

    if by_kind.get('Secret'):
        problem(f'{where0}: renders Secrets; they are created beside the manifests (k8s/secrets)')
    for s in sorted(set(services()) - set(deployments)):
        problem(f'{where0}: no Deployment for service {s}')

    referenced_secrets = {}
    for name, dep in sorted(deployments.items()):
        if name not in services():
            check_other_deployment(f'{where0}: Deployment {name}', dep)
            continue
        where = f'{where0}: Deployment {name}'
        spec = dep['spec']
        pod = spec['template']['spec']
        labels = spec['template']['metadata'].get('labels', {})
        if 'replicas' in spec:
            problem(f'{where}: sets replicas; the HorizontalPodAutoscaler owns the count')
        containers = pod['containers']
        if len(containers) != 1:
            problem(f'{where}: expected one container')
        c = containers[0]
        image = c.get('image', '')
        if ':' not in image.rsplit('/', 1)[-1] or image.endswith(':latest'):
            problem(f'{where}: image {image} has no pinned tag (set it in the overlay\'s images:)')
        ports = {p.get('name'): p.get('containerPort') for p in c.get('ports', [])}
        if ports.get('ops') != OPS_PORT:
            problem(f'{where}: no port named ops = {OPS_PORT}')
        for probe, path in (('startupProbe', '/livez'), ('livenessProbe', '/livez'), ('readinessProbe', '/readyz')):
            get = (c.get(probe) or {}).get('httpGet') or {}
            if get.get('path') != path or get.get('port') not in ('ops', OPS_PORT):
                problem(f'{where}: {probe} must GET {path} on the ops port')
        sp = c.get('startupProbe') or {}
        if sp.get('periodSeconds', 10) * sp.get('failureThreshold', 3) < 120:
            problem(f'{where}: startupProbe allows under 2 minutes; the ops port opens only once every connection is up')
        res = c.get('resources') or {}
        for k in ('cpu', 'memory'):
            if k not in (res.get('requests') or {}):
                problem(f'{where}: no {k} request (the autoscaler and the scheduler need it)')
        if 'memory' not in (res.get('limits') or {}):
            problem(f'{where}: no memory limit')
        sc = c.get('securityContext') or {}
        psc = pod.get('securityContext') or {}
        if not (sc.get('runAsNonRoot') or psc.get('runAsNonRoot')):
            problem(f'{where}: runAsNonRoot is not set')
        if sc.get('readOnlyRootFilesystem') is not True or sc.get('allowPrivilegeEscalation') is not False:
            problem(f'{where}: needs readOnlyRootFilesystem: true and allowPrivilegeEscalation: false')
        if pod.get('automountServiceAccountToken') is not False:
            problem(f'{where}: mounts a service account token it never uses')
        if pod.get('enableServiceLinks') is not False:
            problem(f'{where}: enableServiceLinks would inject <SERVICE>_PORT variables (e.g. SMTP_PORT)')

        # The environment, as the container will see it.
        env = {}
        for src in c.get('envFrom', []):
            if 'secretRef' in src:
                problem(f'{where}: envFrom a whole Secret; reference the keys it uses one by one')
            cm = (src.get('configMapRef') or {}).get('name')
            if cm is not None:
                if cm not in cms:
                    problem(f'{where}: ConfigMap {cm} is not in the overlay')
                env.update(cms.get(cm, {}))
        for e in c.get('env', []):
            ref = (e.get('valueFrom') or {}).get('secretKeyRef')
            if ref:
                if ref['name'] != f'{name}-secrets':
                    problem(f'{where}: {e["name"]} comes from Secret {ref["name"]}, not its own {name}-secrets')
                referenced_secrets.setdefault(ref['name'], set()).add(ref['key'])
                env[e['name']] = None
            else:
                env[e['name']] = e.get('value')
        for k in sorted(SECRET_KEYS & set(env)):
            if env[k] is not None:
                problem(f'{where}: {k} is written into the manifests; it belongs in {name}-secrets')
        check_service_env(where, name, env)
        for k, want in expect.get('env', {}).items():
            if k in env and str(env[k]) != str(want):
                problem(f'{where}: {k}={env[k]}, this overlay expects {want}')

        # Shutdown: preStop, then the service's own drain, inside the grace period.
        grace = pod.get('terminationGracePeriodSeconds', 30)
        pre = (c.get('lifecycle') or {}).get('preStop')
        if not pre:
            problem(f'{where}: no preStop (endpoints need a moment to drop a terminating pod)')
        pre_cmd = ((pre or {}).get('exec') or {}).get('command') or []
        pre_s = int(pre_cmd[-1]) if pre_cmd and pre_cmd[0] == 'sleep' else 0
        drain = int(env.get('SHUTDOWN_TIMEOUT_SECONDS') or 15)
        if grace < pre_s + drain:
            problem(f'{where}: terminationGracePeriodSeconds {grace} < preStop {pre_s} s + shutdown {drain} s')
        if name in ('gateway', 'storage') and grace < 600:
            problem(f'{where}: {grace} s is too short to finish an upload in flight (>= 600)')

        # Companions: Service, PodDisruptionBudget, HorizontalPodAutoscaler.
        if not any(selects({'matchLabels': s['spec'].get('selector')}, labels) for s in k8s_services.values()):
            problem(f'{where}: no Service selects its pods')
        if not any(selects(p['spec'].get('selector'), labels) for p in by_kind.get('PodDisruptionBudget', [])):
            problem(f'{where}: no PodDisruptionBudget')
        hpas = [h for h in by_kind.get('HorizontalPodAutoscaler', [])
                if h['spec']['scaleTargetRef'].get('kind') == 'Deployment'
                and h['spec']['scaleTargetRef'].get('name') == name]
        if not hpas:
            problem(f'{where}: no HorizontalPodAutoscaler')
        for h in hpas:
            want_min = expect.get('min_replicas', {}).get(name)
            if want_min is not None and h['spec'].get('minReplicas') != want_min:
                problem(f'{where}: autoscaler minReplicas {h["spec"].get("minReplicas")}, expected {want_min}')

        # Every gRPC server it calls: a headless Service on that port whose NetworkPolicy lets it in.
        for k, v in env.items():
            if not (k.endswith('_GRPC') and v):
                continue
            host, port = v.rsplit(':', 1)
            svc = k8s_services.get(host)
            if not svc or not any(p.get('port') == int(port) for p in svc['spec'].get('ports', [])):
                problem(f'{where}: {k}={v}: no Service {host} on port {port}')
                continue
            if svc['spec'].get('clusterIP') != 'None':
                problem(f'Service {host}: not headless; gRPC clients would all stick to one pod')
            target = deployments.get(host)
            target_labels = target['spec']['template']['metadata'].get('labels', {}) if target else {}
            allowed = False
            for pol in policies:
                if not selects(pol['spec'].get('podSelector'), target_labels):
                    continue
                for rule in pol['spec'].get('ingress', []):
                    if any(selects(f.get('podSelector'), labels) and 'namespaceSelector' not in f
                           for f in rule.get('from', [])):
                        allowed = True
            if not allowed:
                problem(f'{where}: no NetworkPolicy lets it call {host} ({k})')

    # The migrate Job: each service with a database, its image, its own database secret.
    jobs = {d['metadata']['name']: d for d in by_kind.get('Job', [])}
    job = jobs.get('coffer-migrate')
    if not job:
        problem(f'{where0}: no Job coffer-migrate (the services build no index in production)')
    else:
        pod = job['spec']['template']['spec']
        by_name = {c['name']: c for c in pod['containers']}
        if pod.get('automountServiceAccountToken') is not False:
            problem(f'{where0}: Job coffer-migrate mounts a service account token it never uses')
        for svc in migrating_services():
            c, dep = by_name.get(svc), deployments.get(svc)
            where = f'{where0}: Job coffer-migrate, container {svc}'
            if not c:
                problem(f'{where}: missing (services/{svc} has a database)')
                continue
            if dep and c.get('image') != dep['spec']['template']['spec']['containers'][0].get('image'):
                problem(f'{where}: image {c.get("image")} is not the Deployment\'s')
            if c.get('command') != ['node', 'dist/migrate.js']:
                problem(f'{where}: command is not [node, dist/migrate.js]')
            refs = [(e['name'], ((e.get('valueFrom') or {}).get('secretKeyRef') or {})) for e in c.get('env', [])]
            if [(n, r.get('name'), r.get('key')) for n, r in refs] != [('MONGODB_URI', f'{svc}-secrets', 'MONGODB_URI')]:
                problem(f'{where}: reads secrets other than its own MONGODB_URI')
            sc = c.get('securityContext') or {}
            if sc.get('readOnlyRootFilesystem') is not True or sc.get('allowPrivilegeEscalation') is not False:
                problem(f'{where}: needs readOnlyRootFilesystem: true and allowPrivilegeEscalation: false')
            if 'memory' not in ((c.get('resources') or {}).get('limits') or {}):
                problem(f'{where}: no memory limit')

    # Only the gateway is reachable from outside the namespace (ops ports from monitoring aside).
    if not any(p['spec'].get('podSelector') == {} and 'Ingress' in p['spec'].get('policyTypes', [])
               and not p['spec'].get('ingress') for p in policies):
        problem(f'{where0}: no default-deny ingress NetworkPolicy')
    for pol in policies:
        for rule in pol['spec'].get('ingress', []):
            outside = any('namespaceSelector' in f or 'ipBlock' in f for f in rule.get('from', [])) \
                or not rule.get('from')
            ports = {p.get('port') for p in rule.get('ports', [])}
            if outside and ports != {'ops'} and pol['spec'].get('podSelector') != {
                    'matchLabels': {'app.kubernetes.io/name': 'gateway'}}:
                problem(f'NetworkPolicy {pol["metadata"]["name"]}: opens a pod other than the gateway to other namespaces')

    ingresses = by_kind.get('Ingress', [])
    if len(ingresses) != 1:
        problem(f'{where0}: expected one Ingress, found {len(ingresses)}')
    for ing in ingresses:
        ann = ing['metadata'].get('annotations') or {}
        if ann.get('nginx.ingress.kubernetes.io/affinity') != 'cookie':
            problem(f'Ingress {ing["metadata"]["name"]}: no cookie affinity (Socket.IO long-polling needs it)')
        if ann.get('nginx.ingress.kubernetes.io/proxy-body-size') != '0':
            problem(f'Ingress {ing["metadata"]["name"]}: a body size limit would cut agent uploads')
        for rule in ing['spec'].get('rules', []):
            for p in rule['http']['paths']:
                if p['backend']['service']['name'] != 'gateway':
                    problem(f'Ingress {ing["metadata"]["name"]}: routes to {p["backend"]["service"]["name"]}, not the gateway')
        if expect.get('tls') and not ing['spec'].get('tls'):
            problem(f'Ingress {ing["metadata"]["name"]}: no TLS in this overlay')

    # An HTTPRoute (components/gateway-api) reaches the gateways only, with cookie affinity.
    for route in by_kind.get('HTTPRoute', []):
        where = f'HTTPRoute {route["metadata"]["name"]}'
        for rule in route['spec'].get('rules', []):
            if any(b.get('name') != 'gateway' for b in rule.get('backendRefs', [])):
                problem(f'{where}: routes to something other than the gateway')
            if (rule.get('sessionPersistence') or {}).get('type') != 'Cookie':
                problem(f'{where}: no cookie session persistence (Socket.IO long-polling needs it)')
            if (rule.get('timeouts') or {}).get('request') != '0s':
                problem(f'{where}: a request timeout would cut agent uploads and WebSockets')

    # Each service's Secret is documented with exactly the keys it is read for.
    for secret, keys in sorted(referenced_secrets.items()):
        example = ROOT / f'k8s/secrets/{secret}.env.example'
        if not example.exists():
            problem(f'{secret}: no {example.relative_to(ROOT)} describing it')
            continue
        listed = set(re.findall(r'^#?\s*([A-Z][A-Z0-9_]*)=', example.read_text(), flags=re.M))
        if listed != keys:
            problem(f'{example.relative_to(ROOT)}: lists {sorted(listed)}, the Deployment reads {sorted(keys)}')


# Per overlay: what must hold besides the common rules.
OVERLAYS = {
    'single-node': {
        'kubernetes_versions': ['1.30.0', '1.37.0'],
        'env': {'NATS_STREAM_REPLICAS': '1'},
        'min_replicas': {s: 1 for s in ('auth', 'notification', 'audit', 'backup-orchestrator', 'storage', 'kb', 'gateway')},
    },
    'cluster': {
        'kubernetes_versions': ['1.30.0', '1.37.0'],
        'env': {'NATS_STREAM_REPLICAS': '3'},
        'min_replicas': {'gateway': 3, 'auth': 2, 'notification': 2, 'audit': 2, 'backup-orchestrator': 2, 'storage': 2, 'kb': 2},
        'tls': True,
    },
}


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'context':
        check_context(args[0])
        finish('build context')
    elif cmd == 'dockerfile':
        check_dockerfile()
        finish('deploy/Dockerfile')
    elif cmd == 'compose':
        check_compose(args[0], args[1])
        finish('docker-compose.yml')
    elif cmd == 'k8s':
        overlay = args[0]
        if overlay not in OVERLAYS:
            problem(f'k8s/overlays/{overlay}: unknown to deploy/ci/policy.py (add its expectations)')
            finish(f'k8s/overlays/{overlay}')
        check_k8s(overlay, args[1], OVERLAYS[overlay])
        finish(f'k8s/overlays/{overlay}')
    else:
        sys.exit(f'unknown command {cmd}')


if __name__ == '__main__':
    main()
