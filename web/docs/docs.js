// The API's interactive docs: Swagger UI on this service's own /openapi.json, from
// files this service serves itself (no CDN, no inline script: the page runs under the
// service's Content-Security-Policy).
window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  plugins: [SwaggerUIBundle.plugins.DownloadUrl],
  layout: "StandaloneLayout",
  validatorUrl: null,
});
