import { expect } from 'chai';
import { compareQuantities, isQuantity, parseQuantity, QUANTITY_FORMAT_MESSAGE } from '../../api/meta/quantity.js';

describe('quantities', () => {
  it('reads decimal, binary and exponent suffixes', () => {
    expect(parseQuantity('1.5G').value).to.equal(1.5e9);
    expect(parseQuantity('512k').value).to.equal(512_000);
    expect(parseQuantity('20Mi').value).to.equal(20 * 1024 * 1024);
    expect(parseQuantity('100m').value).to.be.closeTo(0.1, 1e-12);
    expect(parseQuantity('1e3').value).to.equal(1000);
    expect(parseQuantity('-1').value).to.equal(-1);
    expect(parseQuantity('+2u').value).to.be.closeTo(2e-6, 1e-18);
    expect(parseQuantity('.5').value).to.equal(0.5);
    expect(parseQuantity('3n').value).to.be.closeTo(3e-9, 1e-20);
    expect(parseQuantity('1E-2').value).to.equal(0.01);
  });

  it('prints canonical forms as kube does', () => {
    const cases: Record<string, string> = {
      '1.5G': '1500M',
      '1000': '1k',
      '0.1': '100m',
      '100m': '100m',
      '12345': '12345',
      '1.5k': '1500',
      '2048Ki': '2Mi',
      '1536Mi': '1536Mi',
      '1.5Gi': '1536Mi',
      '0.5Ki': '512',
      '1024': '1024',
      '2000': '2k',
      '1Ki': '1Ki',
      '1e3': '1e3',
      '1.5e3': '1500',
      '1e-3': '1e-3',
      '0': '0',
      '-0': '0',
      '-1.5': '-1500m',
      '0.0000000001': '1n',
      '1.0000000001': '1000000001n',
      '1e21': '1e21',
      '1000000000000000000000': '1000E',
      '000100': '100',
    };
    for (const [input, canonical] of Object.entries(cases)) {
      expect(parseQuantity(input).canonical, input).to.equal(canonical);
    }
  });

  it('rejects malformed quantities with the kube message', () => {
    for (const bad of ['', ' 1', '1 ', 'abc', '.', '1.2.3', '--1', 'Mi', '1/2']) {
      expect(isQuantity(bad), bad).to.equal(false);
      expect(() => parseQuantity(bad), bad).to.throw(QUANTITY_FORMAT_MESSAGE);
    }
  });

  it('rejects unknown suffixes built from suffix letters', () => {
    for (const bad of ['1ki', '1K', '1MM', '1ei']) {
      expect(() => parseQuantity(bad), bad).to.throw("unable to parse quantity's suffix");
    }
    expect(isQuantity('1Ei')).to.equal(true);
  });

  it('compares exactly across formats', () => {
    expect(compareQuantities(parseQuantity('1Ki'), parseQuantity('1024'))).to.equal(0);
    expect(compareQuantities(parseQuantity('999m'), parseQuantity('1'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('1G'), parseQuantity('1Gi'))).to.equal(-1);
    expect(compareQuantities(parseQuantity('-1'), parseQuantity('0'))).to.equal(-1);
  });
});
