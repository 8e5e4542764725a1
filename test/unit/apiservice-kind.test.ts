import { expect } from 'chai';
import { apiService, availableCell, serviceCell } from '../../api/apiregistration/v1/api-service.js';
import { createKindValidator } from '../../api/validation/schema-validator.js';
import { defaulted, fields, messages, mk } from '../helpers/kind-rules.js';

describe('APIService', () => {
  const remote = { namespace: 'monitoring', name: 'metrics' };
  const spec = (extra: Record<string, unknown>) => ({
    spec: { group: 'metrics.example.io', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10, ...extra },
  });
  it('requires the name <version>.<group>', () => {
    expect(messages(apiService, mk(apiService, spec({}), 'metrics'))).to.deep.equal([
      'metadata.name: Invalid value: "metrics": must be `spec.version+"."+spec.group`: "v1.metrics.example.io"',
    ]);
  });
  it('allows an empty group only for the legacy v1', () => {
    expect(messages(apiService, mk(apiService, spec({ group: '', version: 'v2' }), 'v2.'))).to.deep.equal([
      'spec.group: Required value: only v1 may have an empty group and it better be legacy kube',
    ]);
    expect(fields(apiService, mk(apiService, spec({ group: 'Bad_Group' }), 'v1.Bad_Group'))).to.deep.equal([
      'spec.group',
    ]);
    expect(fields(apiService, mk(apiService, spec({ version: '1v' }), '1v.metrics.example.io'))).to.deep.equal([
      'spec.version',
    ]);
  });
  it('keeps the priorities in upstream ranges', () => {
    const o = mk(apiService, spec({ groupPriorityMinimum: 20001, versionPriority: 0 }), 'v1.metrics.example.io');
    expect(messages(apiService, o)).to.deep.equal([
      'spec.groupPriorityMinimum: Invalid value: 20001: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 0: must be positive and less than 1000',
    ]);
  });
  it('refuses a caBundle or insecureSkipTLSVerify on a Local APIService, and both together on a remote one', () => {
    const local = mk(apiService, spec({ caBundle: 'AAEC', insecureSkipTLSVerify: true }), 'v1.metrics.example.io');
    expect(messages(apiService, local)).to.deep.equal([
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
      'spec.insecureSkipTLSVerify: Invalid value: true: local APIServices may not have insecureSkipTLSVerify',
    ]);
    const both = mk(apiService, spec({ service: remote, caBundle: 'AAEC', insecureSkipTLSVerify: true }));
    both.metadata.name = 'v1.metrics.example.io';
    expect(messages(apiService, defaulted(apiService, both))).to.deep.equal([
      'spec.insecureSkipTLSVerify: Invalid value: true: may not be true if caBundle is present',
    ]);
  });
  it('requires the service namespace and name and a valid port, defaulting the port to 443', () => {
    const o = mk(apiService, spec({ service: { port: 70000 } }), 'v1.metrics.example.io');
    expect(fields(apiService, o)).to.deep.equal(['spec.service.namespace', 'spec.service.name', 'spec.service.port']);
    const d = defaulted(apiService, mk(apiService, spec({ service: remote }), 'v1.metrics.example.io'));
    expect((d.spec as { service: { port: number } }).service.port).to.equal(443);
  });
  it('checks condition statuses of a status write', () => {
    const o = mk(apiService, { ...spec({}), status: { conditions: [{ type: 'Available', status: 'Maybe' }] } });
    expect(
      createKindValidator(apiService)
        .validateStatusUpdate(o, o)
        .map((e) => e.field),
    ).to.deep.equal(['status.conditions[0].status']);
  });
  it('prints SERVICE and AVAILABLE as upstream does', () => {
    const cond = (status: string, reason?: string) => ({
      status: { conditions: [{ type: 'Available', status, reason }] },
    });
    expect(serviceCell(mk(apiService, spec({})))).to.equal('Local');
    expect(serviceCell(mk(apiService, spec({ service: remote })))).to.equal('monitoring/metrics');
    expect(availableCell(mk(apiService, cond('True', 'Local')))).to.equal('True');
    expect(availableCell(mk(apiService, cond('False', 'FailedDiscoveryCheck')))).to.equal(
      'False (FailedDiscoveryCheck)',
    );
    expect(availableCell(mk(apiService, {}))).to.equal('Unknown');
  });
});
