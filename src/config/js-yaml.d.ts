/** The part of js-yaml 4 that yamlFast.ts uses (the package ships no types of its own). */
declare module "js-yaml" {
  interface TypeOptions {
    kind: "scalar" | "sequence" | "mapping";
    resolve?: (data: unknown) => boolean;
    construct?: (data: never) => unknown;
  }
  class Type {
    constructor(tag: string, options: TypeOptions);
  }
  class Schema {
    extend(types: { implicit?: Type[]; explicit?: Type[] }): Schema;
  }
  interface LoadOptions {
    schema?: Schema;
    filename?: string;
    json?: boolean;
  }
  const jsYaml: {
    load(text: string, options?: LoadOptions): unknown;
    Type: typeof Type;
    Schema: typeof Schema;
    FAILSAFE_SCHEMA: Schema;
  };
  export default jsYaml;
  export type { Schema, Type };
}
