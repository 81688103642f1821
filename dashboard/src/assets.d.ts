/** Stylesheets imported for their side effect (esbuild bundles them into the hashed stylesheet). */
declare module '*.css';
