// ESLint (flat config): the few rules STYLE.md asks for, with type
// information, plus the dependency direction of DESIGN.md §2 as
// no-restricted-imports zones. Prettier owns formatting, so no style rules here.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { importX, createNodeResolver } from 'eslint-plugin-import-x';
import hstorm from './scripts/eslint/no-type-cycle.js';

/** Relative imports that reach into a top-level folder, from any depth. */
const folder = (...names) => `^(\\.{1,2}/)+(${names.join('|')})(/|$)`;

const noCli = {
  regex: folder('cli'),
  message: 'nothing imports cli/: it is the top of the dependency graph (DESIGN.md §2)',
};

const noUi = {
  regex: folder('ui'),
  message: 'only cli/ (and tests) import ui/: the daemons never depend on the UI room; the caller composes them (DESIGN.md §2)',
};

/** The read model and the views of nimbus, as types: all ui/ (and ui/web/) may know of nimbus besides its HTTP errors. */
const nimbusReadModelTypes = {
  regex: '^(\\.\\./)+nimbus/(read-model|views)\\.js$',
  allowTypeImports: true,
  message: 'ui/ imports the read model and the views of nimbus as types only (DESIGN.md §2)',
};

/** What ui/ may take from nimbus/: its read model and views (types), and the HTTP API's errors and body parser its error handler maps. */
const uiReadsNimbus = [
  {
    regex: '^(\\.\\./)+nimbus/(?!(read-model|views|errors|http-requests)\\.js$)',
    message:
      'ui/ reads nimbus only through its read model: types from nimbus/read-model.ts and nimbus/views.ts, errors and parseBody from nimbus/errors.ts and nimbus/http-requests.ts (DESIGN.md §2)',
  },
  nimbusReadModelTypes,
];

/**
 * One `@typescript-eslint/no-restricted-imports` setting per folder: a later
 * config block replaces a rule's options rather than merging them, so each
 * zone lists all of its patterns.
 */
const restrict = (...patterns) => ['error', { patterns }];

export default defineConfig(
  {
    ignores: ['dist/', 'node_modules/', 'scratch/', 'coverage/', '**/*.d.ts'],
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin, 'import-x': importX, hstorm },
    settings: {
      // Follow .ts files when walking the import graph (no-cycle), parsed by typescript-eslint.
      'import-x/extensions': ['.ts', '.js', '.mjs', '.cjs'],
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createNodeResolver({
          // Sources import `./x.js`, which is `./x.ts` until compiled; `hstorm` is the SDK (tsconfig paths).
          extensionAlias: { '.js': ['.ts', '.js'] },
          extensions: ['.ts', '.js', '.json', '.node'],
          tsconfig: { configFile: `${import.meta.dirname}/tsconfig.json` },
        }),
      ],
    },
    rules: {
      // ZooKeeper and ZeroMQ calls are async: an unawaited promise is a lost error. `void p` marks fire-and-forget.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports' }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // import-x/no-cycle does not follow type-only imports; this does (scripts/eslint/no-type-cycle.js).
      'hstorm/no-type-cycle': 'error',
      '@typescript-eslint/no-restricted-imports': restrict(noCli, noUi),
    },
  },
  {
    // cli/ is the top: it composes the daemons and the UI room.
    files: ['cli/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': restrict(noCli) },
  },
  {
    // common/ is shared by everyone, so it depends on none of them.
    files: ['common/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(noCli, {
        regex: folder('topology-sdk', 'worker', 'nimbus', 'ui', 'supervisor', 'examples', 'bench', 'test'),
        message: 'common/ imports nothing of the other folders (DESIGN.md §2)',
      }, {
        regex: '^hstorm$',
        message: 'common/ imports nothing of the other folders (DESIGN.md §2)',
      }),
    },
  },
  {
    // What a topology author imports: the SDK and common/, never a daemon, and never ZooKeeper, ZeroMQ or pino at run time.
    files: ['topology-sdk/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(
        noCli,
        {
          regex: folder('worker', 'nimbus', 'ui', 'supervisor', 'examples', 'bench', 'test'),
          message: 'topology-sdk/ imports only common/ (DESIGN.md §2)',
        },
        {
          regex: '^(node-zookeeper-client|zeromq|pino|fastify)(/|$)',
          allowTypeImports: true,
          message: 'topology-sdk/ must not load ZooKeeper, ZeroMQ, pino or fastify at run time (STYLE.md); a type import is fine',
        },
        {
          regex: '^(\\.{1,2}/)+common/(logger|cluster-state|zookeeper-server)(\\.js$|/)',
          allowTypeImports: true,
          message: 'this common/ module loads pino or ZooKeeper at run time; topology-sdk/ may import only its types',
        },
      ),
    },
  },
  {
    // Flux compiles YAML to a topology module: it reads common/ and the SDK; cli/ uses it.
    files: ['flux/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(noCli, {
        regex: folder('worker', 'nimbus', 'ui', 'supervisor', 'examples', 'bench', 'test', 'testing'),
        message: 'flux/ imports only common/ and topology-sdk/ (DESIGN.md §2)',
      }),
    },
  },
  {
    // The Flux runtime travels inside topology bundles, beside an external `hstorm`: the SDK's public entry is all it may import.
    files: ['flux/runtime/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict({
        regex: '^(?!\\./|\\.\\./\\.\\./topology-sdk/index\\.js$)',
        message: 'flux/runtime/ is bundled into topology code: it imports only itself and the SDK\'s public entry (../../topology-sdk/index.js), which stays external',
      }),
    },
  },
  {
    // The scheduler is a pure strategy: values only from itself and from common/'s pure helpers; anything else as types.
    files: ['nimbus/scheduler/**/*.ts'],
    rules: {
      // A type import passes when any allowTypeImports pattern matches it, so this one leaves cli/ and ui/ to noCli and noUi.
      '@typescript-eslint/no-restricted-imports': restrict(noCli, noUi, {
        regex: '^(?!\\./|(\\.\\./)+common/(errors|topology-def|resources|assignment|histogram)\\.js$|(\\.\\./)+(cli|ui)/)',
        allowTypeImports: true,
        message:
          'nimbus/scheduler/ imports only types, plus values from itself and the pure helpers of common/ (errors, topology-def, resources, assignment, histogram) (DESIGN.md §2)',
      }),
    },
  },
  {
    // The UI room reads nimbus through its read model, and acts through TopologyControl; never the Nimbus class.
    files: ['ui/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict(noCli, ...uiReadsNimbus, {
        regex: folder('topology-sdk', 'worker', 'supervisor', 'examples', 'bench', 'test', 'testing'),
        message: 'ui/ imports only common/ and the read model of nimbus/ (DESIGN.md §2)',
      }),
    },
  },
  {
    // The web UI runs in a browser: it reads the UI room's views as types only, and loads no daemon code.
    files: ['ui/web/**/*.ts', 'ui/web/**/*.tsx'],
    rules: {
      // A type import passes when any allowTypeImports pattern matches it, so the last one leaves nimbus/ and cli/ to the others.
      '@typescript-eslint/no-restricted-imports': restrict(
        noCli,
        {
          regex: '^(\\.\\./)+nimbus/(?!(read-model|views)\\.js$)',
          message: 'ui/web/ is browser code: of nimbus it may import only the read model and the views, as types (DESIGN.md §2)',
        },
        nimbusReadModelTypes,
        {
          regex: '^(\\.\\./)+(?!\\.\\./|nimbus/|cli/)',
          allowTypeImports: true,
          message: 'ui/web/ is browser code: it may import the rest of ui/ (its views) and common/ only as types',
        },
      ),
    },
  },
  {
    // The connectors travel beside the SDK as subpath exports (hstorm/connectors/redis, …): they import the SDK's public
    // entry, their own common/ and common's did-you-mean, and their clients; nothing of the daemons.
    files: ['connectors/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': restrict({
        regex: '^(\\.\\./)+(?!(\\.\\./)*(topology-sdk/index|common/did-you-mean)\\.js$|common/)',
        message: "connectors/ imports only itself, the SDK's public entry (../../topology-sdk/index.js) and common/did-you-mean.js (DESIGN.md §2)",
      }),
    },
  },
  {
    // A topology that uses no connector must not load a connector's client: only connectors/ (and the tests,
    // benchmarks and examples that use them) import redis, pg or amqplib, and nothing of the runtime imports connectors/.
    files: ['topology-sdk/**/*.ts', 'worker/**/*.ts', 'nimbus/**/*.ts', 'supervisor/**/*.ts', 'common/**/*.ts', 'cli/**/*.ts', 'flux/**/*.ts', 'ui/**/*.ts', 'testing/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { regex: '^(redis|@redis/.*|pg|amqplib)$', message: 'the connectors\' clients load only through hstorm/connectors/* (DESIGN.md §2)' },
            { regex: folder('connectors'), message: 'nothing of the runtime imports connectors/: they are loaded only by topologies that use them (DESIGN.md §2)' },
          ],
        },
      ],
    },
  },
  {
    // Tests, benchmarks and hstorm/testing are entry points beside cli/ (they drive a LocalCluster): they may reach anything.
    files: ['test/**/*.ts', 'bench/**/*.ts', 'testing/**/*.ts'],
    rules: { '@typescript-eslint/no-restricted-imports': 'off' },
  },
);
