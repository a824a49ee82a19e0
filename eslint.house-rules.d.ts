import type { Linter } from 'eslint'

/** The house's rules as ESLint config objects (eslint.house-rules.js). */
export declare const houseRules: Linter.Config[]
