// The Warning header values of one response, bounded and encoded as kube-apiserver's warning recorder does them.
import { expect } from 'chai';
import { headerValue, WarningRecorder } from '../../gateway/handlers/warning-headers.js';

const utf8 = (value: string): string => Buffer.from(value, 'latin1').toString('utf8');
const record = (texts: string[]): string[] => {
  const recorder = new WarningRecorder();
  for (const t of texts) recorder.add(t);
  return recorder.values.map(utf8);
};

describe('Warning headers', () => {
  it('writes the text as UTF-8 bytes, escaping only " and \\', () => {
    expect(utf8(headerValue('日本 "q" \\ é')!)).to.equal('299 - "日本 \\"q\\" \\\\ é"');
  });

  it('drops a text with a control character or a lone surrogate', () => {
    expect(headerValue('a\u0007b')).to.equal(undefined);
    expect(headerValue('a\tb')).to.equal(undefined);
    expect(headerValue('a\u0085b')).to.equal(undefined);
    expect(headerValue('a\ud800b')).to.equal(undefined);
    expect(record(['ok', 'bad\n', 'fine'])).to.deep.equal(['299 - "ok"', '299 - "fine"']);
  });

  it('merges identical warnings', () => {
    expect(record(['a', 'b', 'a', 'a'])).to.deep.equal(['299 - "a"', '299 - "b"']);
  });

  it('keeps warnings whole up to 4096 characters in all', () => {
    const texts = Array.from({ length: 16 }, (_, i) => `${String(i).padStart(2, '0')}${'x'.repeat(254)}`);
    expect(record(texts)).to.have.length(16);
    expect(record(texts)[0]).to.equal(`299 - "${texts[0]}"`);
  });

  it('past 4096 characters cuts every warning to 256 and drops those that come once the total is reached', () => {
    const long = Array.from({ length: 3 }, (_, i) => `${i}${'y'.repeat(1999)}`);
    const values = record([...long, ...Array.from({ length: 1000 }, (_, i) => `short ${i}`)]);
    expect(values.slice(0, 3)).to.deep.equal(long.map((t) => `299 - "${t.slice(0, 256)}"`));
    // 3 × 256 written after the cut: short ones follow until the total reaches 4096 characters.
    const texts = values.map((v) => v.slice(7, -1));
    const total = texts.reduce((n, t) => n + t.length, 0);
    expect(total).to.be.within(4096, 4096 + 8);
    expect(values.length).to.be.below(1003);
  });

  it('counts characters, not bytes, and cuts on a character boundary', () => {
    const values = record(['日'.repeat(3000), '本'.repeat(3000)]);
    expect(values).to.deep.equal([`299 - "${'日'.repeat(256)}"`, `299 - "${'本'.repeat(256)}"`]);
  });
});
