// What contract.gen.ts injects its endpoints into: a stand-in with the shape of an RTK Query api,
// so the generated operation types compile without Redux. Tests import only those types.

interface EndpointBuilder {
  query<Response, Arg>(definition: { query: (arg: Arg) => unknown }): { response: Response; arg: Arg };
  mutation<Response, Arg>(definition: { query: (arg: Arg) => unknown }): { response: Response; arg: Arg };
}

export const contractApi = {
  injectEndpoints<Endpoints>(options: {
    endpoints: (build: EndpointBuilder) => Endpoints;
    overrideExisting?: boolean;
  }) {
    return options;
  },
};
