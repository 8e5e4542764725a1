import { expect } from 'chai';
import { corruptBase64Offset, goJsonObjectError } from '../../api/common/go-decoding.js';

describe('Go decoding errors', () => {
  it('reports the offset encoding/base64 reports for corrupt standard base64', () => {
    const cases: [string, number][] = [
      ['', -1],
      ['aGVsbG8=', -1],
      ['aGVs\r\nbG8=', -1],
      ['aGk=\n', -1],
      ['aGVsbA==', -1],
      ['!!', 0],
      ['abc', 0],
      ['ab', 0],
      ['a', 0],
      ['aGVsbG8', 4],
      ['aGk=x', 4],
      ['a===', 1],
      ['aG=x', 2],
      ['aG=', 3],
      ['aGVsbG8=aGk=', 8],
    ];
    for (const [text, offset] of cases) expect(corruptBase64Offset(text), JSON.stringify(text)).to.equal(offset);
  });

  it('words JSON syntax and type errors as encoding/json does into a map', () => {
    const cases: [string, string | undefined][] = [
      ['{"auths":{}}', undefined],
      ['null', undefined],
      [' { } ', undefined],
      ['', 'unexpected end of JSON input'],
      ['{"a":', 'unexpected end of JSON input'],
      ['not json', "invalid character 'o' in literal null (expecting 'u')"],
      ['xyz', "invalid character 'x' looking for beginning of value"],
      ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
      ['{"a":[1 2]}', "invalid character '2' after array element"],
      ['{"a":[1,]}', "invalid character ']' looking for beginning of value"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
      ['{"a":-x}', "invalid character 'x' in numeric literal"],
      ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
      ['{} {}', "invalid character '{' after top-level value"],
      ['{"a":"\n"}', "invalid character '\\n' in string literal"],
      ['[1]', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
      ['"s"', 'json: cannot unmarshal string into Go value of type map[string]interface {}'],
      ['1.5e3', 'json: cannot unmarshal number into Go value of type map[string]interface {}'],
      ['true', 'json: cannot unmarshal bool into Go value of type map[string]interface {}'],
    ];
    for (const [text, message] of cases) expect(goJsonObjectError(Buffer.from(text)), text).to.equal(message);
  });

  it("refuses a hostile nesting (a .dockerconfigjson of 200,000 brackets) with Go's words, not a stack overflow", () => {
    expect(goJsonObjectError(Buffer.from('['.repeat(200_000)))).to.equal('exceeded max depth');
    expect(goJsonObjectError(Buffer.from(`{"auths":${'['.repeat(900)}${']'.repeat(900)}}`))).to.equal(undefined);
  });
});
