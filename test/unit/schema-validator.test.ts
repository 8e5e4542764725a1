import { expect } from 'chai';
import { createSchemaValidator, createKindValidator } from '../../api/validation/schema-validator.js';
import { fieldErrorMessage } from '../../api/meta/field-errors.js';
import { replicaSet } from '../../api/apps/v1/replica-set.js';
import { node } from '../../api/core/v1/node.js';
import { cronJob } from '../../api/batch/v1/cron-job.js';
import { networkPolicy } from '../../api/networking/v1/network-policy.js';

const rs = () =>
  ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    },
  }) as any;

describe('schema validator: prune', () => {
  const v = createKindValidator(replicaSet);

  it('reports and removes unknown fields at several depths', () => {
    const o = rs();
    o.metadata.labelz = { a: 'b' };
    o.spec.foo = 1;
    o.spec.selector.matchLabelz = {};
    o.status = { replicas: 1, bogus: true };
    expect(v.prune(o)).to.deep.equal(['metadata.labelz', 'spec.selector.matchLabelz', 'spec.foo', 'status.bogus']);
    expect(o.metadata).to.not.have.property('labelz');
    expect(o.spec).to.not.have.property('foo');
    expect(o.status).to.deep.equal({ replicas: 1 });
  });

  it('keeps unknown fields under x-kubernetes-preserve-unknown-fields but prunes beside them', () => {
    const o = rs();
    o.spec.template.spec.hostPID = true;
    o.spec.template.spec.containers[0].livenessProbe = { httpGet: { path: '/' } };
    o.spec.template.metadata.nope = 1;
    expect(v.prune(o)).to.deep.equal(['spec.template.metadata.nope']);
    expect(o.spec.template.spec.hostPID).to.equal(true);
    expect(o.spec.template.spec.containers[0].livenessProbe).to.deep.equal({ httpGet: { path: '/' } });
  });

  it('keeps map entries and reports unknown fields inside list items with their index', () => {
    const o = {
      metadata: { name: 'n', labels: { anything: 'x' } },
      spec: {
        taints: [
          { key: 'k', effect: 'NoSchedule' },
          { key: 'k2', effect: 'NoExecute', colour: 'red' },
        ],
      },
    };
    expect(createKindValidator(node).prune(o)).to.deep.equal(['spec.taints[1].colour']);
    expect(o.metadata.labels).to.deep.equal({ anything: 'x' });
  });

  it('drops nulls on non-nullable fields without reporting them', () => {
    const o = rs();
    o.metadata.creationTimestamp = null;
    expect(v.prune(o)).to.deep.equal([]);
    expect(o.metadata).to.not.have.property('creationTimestamp');
  });

  it('keeps the job template spec of a CronJob as sent', () => {
    const o: any = {
      metadata: { name: 'c', namespace: 'd' },
      spec: { schedule: '@hourly', jobTemplate: { spec: { backoffLimit: 2, template: { x: 1 } } } },
    };
    expect(createKindValidator(cronJob).prune(o)).to.deep.equal([]);
    expect(o.spec.jobTemplate.spec).to.deep.equal({ backoffLimit: 2, template: { x: 1 } });
  });
});

describe('schema validator: validate', () => {
  it('reports type errors with dotted paths in kube-apiserver wording', () => {
    const o = rs();
    o.spec.replicas = 'three';
    const errs = createKindValidator(replicaSet).validate(o);
    expect(errs.map(fieldErrorMessage)).to.deep.equal([
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
    ]);
  });

  it('paths list items with indexes and map values with keys', () => {
    const o: any = {
      metadata: { name: 'n', labels: { a: 5 } },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule', timeAdded: 'yesterday' }] },
    };
    const fields = createSchemaValidator(node.schema)
      .validate(o)
      .map((e) => e.field);
    expect(fields).to.include('metadata.labels[a]');
    expect(fields).to.include('spec.taints[0].timeAdded');
  });

  it('reports required and enum errors', () => {
    const o: any = { metadata: { name: 'n' }, spec: { taints: [{ effect: 'Sometimes' }] } };
    const errs = createSchemaValidator(node.schema).validate(o);
    expect(errs.map((e) => [e.type, e.field])).to.deep.include.members([
      ['FieldValueRequired', 'spec.taints[0].key'],
      ['FieldValueNotSupported', 'spec.taints[0].effect'],
    ]);
  });

  it('accepts integers and strings for int-or-string fields and rejects others', () => {
    const np = (port: unknown) => ({
      metadata: { name: 'p', namespace: 'd' },
      spec: { podSelector: {}, ingress: [{ ports: [{ port }] }] },
    });
    const v = createSchemaValidator(networkPolicy.schema);
    expect(v.validate(np(80))).to.deep.equal([]);
    expect(v.validate(np('http'))).to.deep.equal([]);
    expect(v.validate(np(true)).map((e) => e.field)).to.deep.equal(['spec.ingress[0].ports[0].port']);
  });

  it('skips kind rules when types are wrong, so they never see bad shapes', () => {
    const o = rs();
    o.spec.selector = 'app=web';
    const errs = createKindValidator(replicaSet).validate(o);
    expect(errs.every((e) => e.type === 'FieldValueTypeInvalid')).to.equal(true);
    expect(errs.map((e) => e.field)).to.deep.equal(['spec.selector']);
  });

  it('never throws on non-objects', () => {
    const v = createKindValidator(replicaSet);
    for (const bad of [null, 42, 'x', []]) expect(() => v.validate(bad)).to.not.throw();
    expect(v.validate('x')).to.have.length.greaterThan(0);
  });

  it('compiles once per kind', () => {
    expect(createKindValidator(replicaSet)).to.equal(createKindValidator(replicaSet));
  });
});
