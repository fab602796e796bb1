// ESLint 9 flat config for the front end (explorer/present/frontend/src), its build script and its node tests.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["explorer/present/frontend/dist/"] }, // built by `npm run build` from src
  js.configs.recommended,
  {
    files: ["explorer/present/frontend/src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
    rules: {
      "max-len": ["error", { code: 120 }],
      "no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "smart"],
      "prefer-const": "error",
      "no-var": "error",
      "no-restricted-properties": [
        "error",
        { property: "innerHTML", message: "report strings are set as text, never as HTML" },
        { property: "outerHTML", message: "report strings are set as text, never as HTML" },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: "set text, not HTML" },
      ],
    },
  },
  {
    files: ["tests/frontend/**/*.js", "eslint.config.js", "build-frontend.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
