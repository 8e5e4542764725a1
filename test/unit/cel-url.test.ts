import { expect } from 'chai';
import { CelEvaluationError } from '../../policies/cel/index.js';
import { getEscapedPath, getHostname, getPort, getQuery, isUrl, parseUrl } from '../../policies/cel/url-library.js';
import { celEval } from '../helpers/cel.js';

describe('CEL URL library', () => {
  it('isURL accepts absolute URLs and absolute paths only', () => {
    expect(celEval('isURL("https://user:pass@example.com:80/path?query=val#fragment")')).to.equal(true);
    expect(celEval('isURL("/absolute-path")')).to.equal(true);
    expect(celEval('isURL("../relative-path")')).to.equal(false);
    expect(celEval('isURL("https://a:b:c/")')).to.equal(false);
    expect(celEval('isURL("example.com")')).to.equal(false);
    expect(isUrl('mailto:someone@example.com')).to.equal(true);
    expect(isUrl('https://exa mple.com/')).to.equal(false);
    expect(isUrl('https://example.com/a\u0001')).to.equal(false);
  });

  it('url() fails on an invalid URL without echoing it', () => {
    expect(() => celEval('url("../x")')).to.throw(CelEvaluationError, 'URL parse error');
    expect(() => celEval('url("https://h/%zz")')).to.throw(CelEvaluationError, 'URL parse error');
  });

  it('getScheme, getHost, getHostname, getPort', () => {
    expect(celEval('url("https://example.com:80/").getScheme()')).to.equal('https');
    expect(celEval('url("/path").getScheme()')).to.equal('');
    expect(celEval('url("https://example.com:80/").getHost()')).to.equal('example.com:80');
    expect(celEval('url("https://example.com/").getHost()')).to.equal('example.com');
    expect(celEval('url("https://[::1]:80/").getHost()')).to.equal('[::1]:80');
    expect(celEval('url("https://[::1]/").getHost()')).to.equal('[::1]');
    expect(celEval('url("/path").getHost()')).to.equal('');
    expect(celEval('url("https://127.0.0.1:80/").getHostname()')).to.equal('127.0.0.1');
    expect(celEval('url("https://[::1]:80/").getHostname()')).to.equal('::1');
    expect(celEval('url("/path").getHostname()')).to.equal('');
    expect(celEval('url("https://example.com:80/").getPort()')).to.equal('80');
    expect(celEval('url("https://example.com/").getPort()')).to.equal('');
    expect(celEval('url("https://[::1]:8443/").getPort()')).to.equal('8443');
    expect(getHostname(parseUrl('https://u@h:1/'))).to.equal('h');
    expect(getPort(parseUrl('https://[::1]/'))).to.equal('');
  });

  it('getEscapedPath', () => {
    expect(celEval('url("https://example.com/path").getEscapedPath()')).to.equal('/path');
    expect(celEval('url("https://example.com/path with spaces/").getEscapedPath()')).to.equal('/path%20with%20spaces/');
    expect(celEval('url("https://example.com").getEscapedPath()')).to.equal('');
    expect(getEscapedPath(parseUrl('https://h/a%2Fb'))).to.equal('/a%2Fb');
  });

  it('getQuery gives every value of every key', () => {
    expect(celEval('url("https://example.com/path?k1=a&k2=b&k2=c").getQuery()')).to.deep.equal({
      k1: ['a'],
      k2: ['b', 'c'],
    });
    expect(celEval('url("https://example.com/path?key with spaces=value with spaces").getQuery()')).to.deep.equal({
      'key with spaces': ['value with spaces'],
    });
    expect(celEval('url("https://example.com/path?").getQuery()')).to.deep.equal({});
    expect(celEval('url("https://example.com/path").getQuery()')).to.deep.equal({});
    expect(celEval('url("https://h/?a=1").getQuery()["a"][0]')).to.equal('1');
    expect(getQuery(parseUrl('https://h/?a=%zz&b=x+y&c'))).to.deep.equal({ b: ['x y'], c: [''] });
  });
});
