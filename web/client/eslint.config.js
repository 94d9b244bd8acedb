// ESLint for the client: the recommended JavaScript, TypeScript and React hooks rules, and the
// layers of src/ (each may import only from the layers below it):
//
//   app/ → pages/ → features/<name>/ → components/, state/, lib/
//
// - lib/, components/ and state/ never import a feature, a page or the app;
// - a feature never imports a page or the app, and another feature only through that
//   feature's index (`@/features/search`, never `@/features/search/ProcessingDialog`);
// - pages never import the app.
// Tests (`*.test.ts(x)`, src/test/) render whole pages and routes, so the layers do not bind them.
import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

/** `no-restricted-imports` refusing imports whose path matches one of `patterns` (regexes). */
function layer(files, patterns, message) {
  return {
    files,
    ignores: ["src/**/*.test.{ts,tsx}", "src/test/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: patterns.map((regex) => ({ regex, message })) }],
    },
  };
}

const UPPER_LAYERS = ["^@/(features|pages|app)(/|$)", "^(\\.\\./)+(features|pages|app)(/|$)"];

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "e2e/"] },
  {
    files: ["**/*.{ts,tsx}"],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      "react-hooks/rules-of-hooks": "error",
      "react-hooks/exhaustive-deps": "error",
      // An unused value is a mistake; an `_`-named parameter says it is unused on purpose.
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  layer(["src/lib/**"], UPPER_LAYERS, "lib/ is below every other layer: it must not import a feature, a page or the app."),
  layer(
    ["src/components/**"],
    UPPER_LAYERS,
    "components/ are shared building blocks: they must not import a feature, a page or the app (move what they need down to lib/ or components/).",
  ),
  layer(
    ["src/state/**"],
    [...UPPER_LAYERS, "^@/components(/|$)"],
    "state/ holds app-wide signals: it must not import components, a feature, a page or the app.",
  ),
  layer(
    ["src/features/**"],
    ["^@/(pages|app)(/|$)", "^@/features/[^/]+/", "^\\.\\./"],
    "A feature imports shared code from lib/, components/ and state/, another feature only through its index (@/features/<name>), and never a page or the app.",
  ),
  layer(["src/pages/**"], ["^@/app(/|$)", "^(\\.\\./)+app(/|$)"], "A page must not import the app."),
  {
    files: ["*.config.{js,ts}", "vite.config.ts"],
    languageOptions: { globals: { ...globals.node } },
  },
);
