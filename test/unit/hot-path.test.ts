// The request hot path's shortcuts keep the results of the slower code they replaced.
import { expect } from 'chai';
import { decodeJsonText } from '../../gateway/negotiation/json.js';
import { parseRequestInfo } from '../../gateway/request/request-info.js';
import { createStaticTokenAuthenticator } from '../../gateway/authn/token-file.js';
import { pruneUnknownFields } from '../../api/validation/prune.js';
import type { JSONSchema } from '../../api/schema.js';

describe('hot path shortcuts', () => {
  describe('duplicate keys in JSON', () => {
    it('are found whatever colons and escaped quotes the strings hold', () => {
      expect(decodeJsonText('{"a":"x:y","b":{"c":"\\":","c":2}}').duplicateFields).to.deep.equal(['b.c']);
      expect(decodeJsonText('{"k\\"":1,"k\\"":2}').duplicateFields).to.deep.equal(['k"']);
      expect(decodeJsonText('{"a\\\\":1,"a\\\\":2}').duplicateFields).to.deep.equal(['a\\']);
      expect(decodeJsonText('[{"a":1},{"a":1,"a":3}]').duplicateFields).to.deep.equal(['[1].a']);
    });
    it('are not reported for colons inside strings alone', () => {
      expect(decodeJsonText('{"a":"::::","b":["c:d",{"e":"\\\\:"}],"f":"\\":"}').duplicateFields).to.deep.equal([]);
      expect(decodeJsonText('"a:b"').duplicateFields).to.deep.equal([]);
    });
    it('stay linear on a long array of strings', () => {
      const started = Date.now();
      decodeJsonText(JSON.stringify(Array.from({ length: 100_000 }, (_, i) => `s${i}`)));
      expect(Date.now() - started).to.be.below(2_000);
    });
  });

  it('parses paths with doubled, trailing and empty segments as before', () => {
    const q = new URLSearchParams();
    expect(parseRequestInfo('GET', '//api/v1/namespaces/a/configmaps/x/', q)).to.include({
      isResourceRequest: true,
      namespace: 'a',
      name: 'x',
    });
    expect(parseRequestInfo('GET', '/api/v1//configmaps', q).parts).to.deep.equal(['', 'configmaps']);
    expect(parseRequestInfo('GET', '/', q).isResourceRequest).to.equal(false);
    expect(parseRequestInfo('GET', '/apis/apps/v1/', q).isResourceRequest).to.equal(false);
  });

  it('looks static tokens up by digest: the first record of a token decides, unknown tokens are not ours', async () => {
    const auth = createStaticTokenAuthenticator('t', [
      { token: 'same', user: { name: 'first', uid: '1', groups: [] } },
      { token: 'same', user: { name: 'second', uid: '2', groups: [] } },
    ]);
    expect((await auth.authenticateToken('same'))?.user.name).to.equal('first');
    expect(await auth.authenticateToken('other')).to.equal(null);
    expect(await auth.authenticateToken('sam')).to.equal(null);
  });

  it('prunes unknown fields inside arrays and maps with the same paths', () => {
    const schema: JSONSchema = {
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } },
        map: { type: 'object', additionalProperties: { type: 'object', properties: { b: { type: 'string' } } } },
        keep: { type: 'string' },
      },
    };
    const value = { list: [{ a: 'x', z: 1 }, 'plain'], map: { k: { b: 'y', w: 2 } }, keep: 's', gone: true };
    expect(pruneUnknownFields(schema, value)).to.deep.equal(['list[0].z', 'map[k].w', 'gone']);
    expect(value).to.deep.equal({ list: [{ a: 'x' }, 'plain'], map: { k: { b: 'y' } }, keep: 's' });
  });
});
