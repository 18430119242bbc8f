import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isProcedureError } from '../../../../procedures/framework/errors.js';
import { nameList } from '../../../../procedures/framework/name-list.js';

const refused = (text: string): boolean => {
  try {
    nameList(text, 'tag');
    return false;
  } catch (e) {
    return isProcedureError(e, 'INVALID_ARGUMENT');
  }
};

describe('comma name lists (delete_tag, delete_branch)', () => {
  test('names are trimmed, repeats count once in first position', () => {
    assert.deepEqual(nameList(' a, b ,a', 'tag'), ['a', 'b']);
    assert.deepEqual(nameList('x', 'branch'), ['x']);
  });

  test("blank entries at the end are ignored, as Java's String.split drops them", () => {
    assert.deepEqual(nameList('a,b,', 'tag'), ['a', 'b']);
    assert.deepEqual(nameList('a,b, ,', 'tag'), ['a', 'b']);
  });

  test('a blank entry before a name, or no name at all, is INVALID_ARGUMENT', () => {
    assert.ok(refused('a,,b'));
    assert.ok(refused(' ,a'));
    assert.ok(refused(''));
    assert.ok(refused(' , '));
    assert.match(String((() => { try { nameList('a,,b', 'branch'); } catch (e) { return e; } })()), /Entry 2 of the branch list/);
  });
});
