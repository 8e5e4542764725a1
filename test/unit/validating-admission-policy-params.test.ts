import type { KindDefinition } from '../../api/scheme.js';
import { randomUUID } from 'node:crypto';
// ValidatingAdmissionPolicy params from the paramKind's informer: an evaluation reads no param from storage, a param
// created, changed or relabelled while bound is seen within a second, missing params are Deny or Allow, and the
// informer runs only while some policy names the kind. The storage under the registry counts what reaches it.
import { expect } from 'chai';
import type { KObject } from '../../api/meta/types.js';
import { builtinKinds } from '../../api/register.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { isStatusError } from '../../api/meta/errors.js';
import { createMemoryStorage } from '../../backends/memory/memory-storage.js';
import type { Storage } from '../../backends/storage.js';
import { ADMISSIONREGISTRATION_GROUP } from '../../api/admissionregistration/v1/admission-common.js';
import { createRegistry, type Registry } from '../../gateway/registry/registry.js';
import { internalWrite, type AdmissionRequest } from '../../gateway/registry/admission-types.js';
import { startPolicySource, type PolicySource } from '../../gateway/admission/policy/policy-source.js';
import { createValidatingAdmissionPolicy } from '../../gateway/admission/policy/validating-policy.js';
import type { AdmissionPlugin } from '../../gateway/admission/plugin.js';
import { eventually } from '../helpers/api.js';

/** A storage that counts the reads and open watches under one prefix. */
function counting(storage: Storage, prefix: () => string) {
  const counts = { reads: 0, watches: 0 };
  const proxy = new Proxy(storage, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'get' || prop === 'getList')
        return (key: string, ...rest: unknown[]) => {
          if (key.startsWith(prefix())) counts.reads++;
          return (value as (...a: unknown[]) => unknown).call(target, key, ...rest);
        };
      if (prop === 'watch')
        return (key: string, opts: unknown, signal: AbortSignal) => {
          const events = (target.watch as (...a: unknown[]) => AsyncIterable<unknown>).call(target, key, opts, signal);
          if (!key.startsWith(prefix())) return events;
          return (async function* () {
            counts.watches++;
            try {
              yield* events;
            } finally {
              counts.watches--;
            }
          })();
        };
      return value;
    },
  });
  return { storage: proxy, counts };
}

/** What the registry tells admission of a create of `def`'s objects in its own group, no subresource. */
function createIdentity(def: KindDefinition) {
  const kind = { group: def.group, version: def.version, kind: def.kind };
  const resource = { group: def.group, version: def.version, resource: def.resource };
  return {
    uid: randomUUID(),
    kind,
    resource,
    requestKind: kind,
    requestResource: resource,
    requestSubResource: '',
    options: { apiVersion: 'meta.k8s.io/v1' as const, kind: 'CreateOptions' as const },
  };
}

describe('ValidatingAdmissionPolicy params through an informer', () => {
  let storage: Storage;
  let registry: Registry;
  let source: PolicySource;
  let plugin: AdmissionPlugin;
  let counts: { reads: number; watches: number };
  const ns = 'team';
  const write = internalWrite();
  const user = { name: 'alice', groups: ['system:authenticated'] };

  const store = (group: string, kind: string) => registry.byKind(group, kind)!;
  const configMaps = () => store('', 'ConfigMap');
  const param = (name: string, max: string, labels: Record<string, string> = {}) =>
    configMaps().create(ns, { metadata: { name, labels }, data: { max } }, write);
  const bind = (name: string, paramRef: Record<string, unknown>) =>
    store(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicyBinding').create(
      '',
      { metadata: { name }, spec: { policyName: 'max-keys', validationActions: ['Deny'], paramRef } },
      write,
    );
  /** A policy with ConfigMap params over creates of `resource`. */
  const createPolicy = (name: string, resource: string, validation: Record<string, string>) =>
    store(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicy').create(
      '',
      {
        metadata: { name },
        spec: {
          paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: [resource] }],
          },
          validations: [validation],
        },
      },
      write,
    );
  const unbind = (name: string) =>
    store(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicyBinding').delete('', name, {}, write);
  /** The plugin's answer to a Secret with `keys` keys. */
  const admit = async (keys: number): Promise<string | undefined> => {
    const secrets = store('', 'Secret');
    const object: KObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: ns },
      data: Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, 'dg=='])),
    };
    const req: AdmissionRequest = {
      ...createIdentity(secrets.def),
      operation: 'CREATE',
      def: secrets.def,
      namespace: ns,
      name: 's',
      subresource: '',
      object,
      user,
      dryRun: true,
    };
    return answer(req);
  };
  /** The plugin's answer: undefined when admitted, else the refusal's message. */
  const answer = async (req: AdmissionRequest): Promise<string | undefined> => {
    try {
      await plugin.validate!(req);
      return undefined;
    } catch (e) {
      if (!isStatusError(e)) throw e;
      return e.message;
    }
  };
  const within = (what: string, probe: () => Promise<boolean>) =>
    eventually(what, async () => ((await probe()) ? true : undefined), 1_000);

  beforeEach(async () => {
    const memory = createMemoryStorage({ historyWindowMs: 60_000 });
    const wrapped = counting(memory, () => configMaps().prefix(''));
    storage = wrapped.storage;
    counts = wrapped.counts;
    registry = createRegistry(builtinKinds, storage, createKindValidator);
    await store('', 'Namespace').create('', { metadata: { name: ns } }, write);
    source = startPolicySource(registry, { log: () => {} });
    plugin = createValidatingAdmissionPolicy({ registry, source });
    await createPolicy('max-keys', 'secrets', {
      expression: 'size(object.data) <= int(params.data.max)',
      messageExpression: "'at most ' + params.data.max",
    });
    await source.synced;
  });
  afterEach(async () => {
    await source.stop();
    await storage.close();
  });

  it('by name: no storage read per evaluation, and a change while bound is seen within a second', async () => {
    await param('limits', '2');
    await bind('by-name', { name: 'limits', namespace: ns, parameterNotFoundAction: 'Deny' });
    await within('bound', async () => (await admit(3)) !== undefined);
    expect(await admit(3)).to.include('at most 2');
    const readsBefore = counts.reads;
    expect(await admit(2)).to.equal(undefined);
    expect(await admit(5)).to.include('at most 2');
    expect(counts.reads).to.equal(readsBefore);
    await configMaps().patch(ns, 'limits', (cm) => ({ ...cm, data: { max: '5' } }), write, '');
    await within('the changed param', async () => (await admit(5)) === undefined);
    expect(await admit(6)).to.include('at most 5');
    expect(counts.reads).to.equal(readsBefore);
  });

  it('by selector: every matching param is evaluated; a relabelled one stops counting', async () => {
    await param('loose', '9', { role: 'limit' });
    await param('strict', '1', { role: 'limit' });
    await param('other', '0');
    await bind('by-selector', { selector: { matchLabels: { role: 'limit' } }, parameterNotFoundAction: 'Deny' });
    await within('bound', async () => (await admit(2)) !== undefined);
    expect(await admit(2)).to.include('at most 1');
    expect(await admit(1)).to.equal(undefined);
    await configMaps().patch(ns, 'strict', (cm) => ({ ...cm, metadata: { ...cm.metadata, labels: {} } }), write, '');
    await within('the relabelled param', async () => (await admit(2)) === undefined);
    expect(await admit(10)).to.include('at most 9');
  });

  it('missing params: Deny refuses until one is created, Allow skips the binding', async () => {
    await bind('deny', { name: 'later', namespace: ns, parameterNotFoundAction: 'Deny' });
    await within('bound', async () => (await admit(0)) !== undefined);
    expect(await admit(0)).to.include('no params found for policy binding with `Deny` parameterNotFoundAction');
    await param('later', '3');
    await within('the created param', async () => (await admit(3)) === undefined);
    await unbind('deny');
    await bind('allow', { selector: { matchLabels: { role: 'none' } }, parameterNotFoundAction: 'Allow' });
    await within('the Allow binding', async () => {
      const { bindings } = source.snapshot();
      return bindings.length === 1 && bindings[0].metadata.name === 'allow';
    });
    expect(await admit(50)).to.equal(undefined);
  });

  it('a namespaced paramRef without a namespace cannot serve a cluster-scoped write: an error for failurePolicy', async () => {
    await createPolicy('ns-params', 'namespaces', { expression: 'params != null' });
    await store(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicyBinding').create(
      '',
      {
        metadata: { name: 'ns-params' },
        spec: {
          policyName: 'ns-params',
          validationActions: ['Deny'],
          paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' },
        },
      },
      write,
    );
    const namespaces = store('', 'Namespace');
    const createNamespace = () =>
      answer({
        ...createIdentity(namespaces.def),
        operation: 'CREATE',
        def: namespaces.def,
        namespace: '',
        name: 'new',
        subresource: '',
        object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new' } },
        user,
        dryRun: true,
      });
    await within('bound', async () => (await createNamespace()) !== undefined);
    expect(await createNamespace()).to.include(
      'cannot use namespaced paramRef in policy binding that matches cluster-scoped resources',
    );
  });

  it('watches the paramKind only while some policy names it', async () => {
    await within('the param informer', async () => counts.watches === 1);
    await store(ADMISSIONREGISTRATION_GROUP, 'ValidatingAdmissionPolicy').delete('', 'max-keys', {}, write);
    await within('the param informer stopped', async () => counts.watches === 0);
  });
});
