"use strict";(self.rspackChunkjupyter_agents=self.rspackChunkjupyter_agents||[]).push([[232],{16(e,r,t){var n=t(17),o=t.n(n),a=t(18),i=(t.n(a))()(o());i.push([e.id,`/*
 * %%agent cells (see src/agentcell/). The editor carries .jp-agent-cell while the cell is
 * in agent mode; the magic line and the {expression} spans are decorations of their own.
 * Colours come from JupyterLab's theme variables, so light and dark themes both work.
 */

/* The magic line reads as the cell's header. */
.cm-line.jp-agent-magic-line {
  background-color: color-mix(in srgb, var(--jp-brand-color1) 12%, transparent);
  border-bottom: 1px solid color-mix(in srgb, var(--jp-brand-color1) 35%, transparent);
}

.jp-agent-magic-command {
  color: var(--jp-brand-color1);
  font-weight: bold;
}

.jp-agent-magic-agent {
  color: var(--jp-mirror-editor-def-color);
  font-weight: bold;
}

.jp-agent-magic-flag {
  color: var(--jp-mirror-editor-keyword-color);
}

.jp-agent-magic-value {
  color: var(--jp-mirror-editor-string-color);
}

.jp-agent-magic-invalid,
.jp-agent-brace-invalid {
  text-decoration: wavy underline var(--jp-error-color1);
  text-decoration-skip-ink: none;
}

/* {expression}: Python inside the prose, set off like inline code. */
.jp-agent-expression {
  background-color: color-mix(in srgb, var(--jp-mirror-editor-variable-2-color) 14%, transparent);
  border-radius: 3px;
}
`,""]),t.d(r,{},{A:i})},18(e){e.exports=function(e){var r=[];return r.toString=function(){return this.map(function(r){var t="",n=void 0!==r[5];return r[4]&&(t+="@supports (".concat(r[4],") {")),r[2]&&(t+="@media ".concat(r[2]," {")),n&&(t+="@layer".concat(r[5].length>0?" ".concat(r[5]):""," {")),t+=e(r),n&&(t+="}"),r[2]&&(t+="}"),r[4]&&(t+="}"),t}).join("")},r.i=function(e,t,n,o,a){"string"==typeof e&&(e=[[null,e,void 0]]);var i={};if(n)for(var c=0;c<this.length;c++){var s=this[c][0];null!=s&&(i[s]=!0)}for(var l=0;l<e.length;l++){var p=[].concat(e[l]);n&&i[p[0]]||(void 0!==a&&(void 0===p[5]||(p[1]="@layer".concat(p[5].length>0?" ".concat(p[5]):""," {").concat(p[1],"}")),p[5]=a),t&&(p[2]&&(p[1]="@media ".concat(p[2]," {").concat(p[1],"}")),p[2]=t),o&&(p[4]?(p[1]="@supports (".concat(p[4],") {").concat(p[1],"}"),p[4]=o):p[4]="".concat(o)),r.push(p))}},r}},17(e){e.exports=function(e){return e[1]}},10(e){var r=[];function t(e){for(var t=-1,n=0;n<r.length;n++)if(r[n].identifier===e){t=n;break}return t}function n(e,n){for(var o={},a=[],i=0;i<e.length;i++){var c=e[i],s=n.base?c[0]+n.base:c[0],l=o[s]||0,p="".concat(s," ").concat(l);o[s]=l+1;var u=t(p),d={css:c[1],media:c[2],sourceMap:c[3],supports:c[4],layer:c[5]};if(-1!==u)r[u].references++,r[u].updater(d);else{var f=function(e,r){var t=r.domAPI(r);return t.update(e),function(r){r?(r.css!==e.css||r.media!==e.media||r.sourceMap!==e.sourceMap||r.supports!==e.supports||r.layer!==e.layer)&&t.update(e=r):t.remove()}}(d,n);n.byIndex=i,r.splice(i,0,{identifier:p,updater:f,references:1})}a.push(p)}return a}e.exports=function(e,o){var a=n(e=e||[],o=o||{});return function(e){e=e||[];for(var i=0;i<a.length;i++){var c=t(a[i]);r[c].references--}for(var s=n(e,o),l=0;l<a.length;l++){var p=t(a[l]);0===r[p].references&&(r[p].updater(),r.splice(p,1))}a=s}}},12(e){var r={};e.exports=function(e,t){var n=function(e){if(void 0===r[e]){var t=document.querySelector(e);if(window.HTMLIFrameElement&&t instanceof window.HTMLIFrameElement)try{t=t.contentDocument.head}catch(e){t=null}r[e]=t}return r[e]}(e);if(!n)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");n.appendChild(t)}},14(e){e.exports=function(e){var r=document.createElement("style");return e.setAttributes(r,e.attributes),e.insert(r,e.options),r}},13(e,r,t){e.exports=function(e){var r=t.nc;r&&e.setAttribute("nonce",r)}},11(e){e.exports=function(e){if("u"<typeof document)return{update:function(){},remove:function(){}};var r=e.insertStyleElement(e);return{update:function(t){var n,o,a;n="",t.supports&&(n+="@supports (".concat(t.supports,") {")),t.media&&(n+="@media ".concat(t.media," {")),(o=void 0!==t.layer)&&(n+="@layer".concat(t.layer.length>0?" ".concat(t.layer):""," {")),n+=t.css,o&&(n+="}"),t.media&&(n+="}"),t.supports&&(n+="}"),(a=t.sourceMap)&&"u">typeof btoa&&(n+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),e.styleTagTransform(n,r,e.options)},remove:function(){var e;null===(e=r).parentNode||e.parentNode.removeChild(e)}}}},15(e){e.exports=function(e,r){if(r.styleSheet)r.styleSheet.cssText=e;else{for(;r.firstChild;)r.removeChild(r.firstChild);r.appendChild(document.createTextNode(e))}}},9(e,r,t){var n=t(10),o=t.n(n),a=t(11),i=t.n(a),c=t(12),s=t.n(c),l=t(13),p=t.n(l),u=t(14),d=t.n(u),f=t(15),m=t.n(f),v=t(16),h={};h.styleTagTransform=m(),h.setAttributes=p(),h.insert=s().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=d(),o()(v.A,h),v.A&&v.A.locals&&v.A.locals}}]);