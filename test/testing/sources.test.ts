import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_MIGRATIONS, GATEWAY_MIGRATIONS, generatorFolders } from '../../src/runtime.ts';
import { ENVIRONMENT_SOURCES, GATEWAY_SOURCES, GENERATOR_FOLDERS } from '../../src/testing/sources.ts';

// The harness keys its template by these lists without loading the registry: they must be the registry's.
describe("the harness's template sources", () => {
  it('are the migrations and generator folders the service registry names, in its order', () => {
    expect(GATEWAY_SOURCES).toEqual(GATEWAY_MIGRATIONS);
    expect(ENVIRONMENT_SOURCES).toEqual(ENVIRONMENT_MIGRATIONS);
    expect(GENERATOR_FOLDERS).toEqual(generatorFolders());
  });
});
