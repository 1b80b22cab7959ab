/* kinegraph view's page: one HTML file holding three.js (an import map of data:
 * URLs the caller gives), the model and its motion as a base64 glTF binary
 * (exporters/gltf.c) and, for a retarget run, its report. The page loads the
 * glTF with GLTFLoader, plays its animation with an AnimationMixer at the
 * motion's frame rate, and draws a ground grid; play/pause, a time slider and
 * frame stepping (buttons, arrow keys) move through the frames. The URL's
 * fragment picks a start for pictures and tests: #frame=N shows frame N paused,
 * Per-frame problems are bars under the slider: a retarget report's timeline
 * (its contact phases and problems, the frames its counts count), else those
 * the library finds itself (joint limits, self-collision).
 * #nogrid hides the grid, #noui the panels (#frame=3&nogrid&noui), #skeleton
 * draws the lines between link frames, #nomesh hides the meshes, #size=WxH
 * makes the picture that size whatever the window's. body[data-kg-status] says "loading", "ready" (after
 * the first picture) or "error: ..." (a script error, a rejected promise, a
 * console error); console warnings are kept in body[data-kg-warnings];
 * body[data-kg-camera] holds the camera of that first picture: {"matrix":
 * projection times view (16, column by column; three.js world, Y up),
 * "width", "height"}. */
#define _GNU_SOURCE /* open_memstream */
#include "cli/view_page.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "analysis/collision.h"
#include "core/data.h"
#include "core/fk.h"
#include "formats/base64.h"
#include "formats/utf8.h"
#include "formats/xml.h"

/* Text inside HTML: & < > " escaped. */
/* A name for the page (a file's, which may be Latin-1 or broken UTF-8) as
 * UTF-8: jansson drops a string that is not (json_string returns NULL), and
 * the page must be UTF-8. NULL stays NULL. */
static char *page_name(const char *s) {
    int changed;
    return s ? kg_utf8_clean(s, strlen(s), &changed) : NULL;
}

/* JSON inside <script>: every '<' (only ever inside strings) as \u003c, so no
 * "</script>" can end the element. */
static void put_json_in_script(FILE *f, const char *s) {
    for (; *s; s++)
        if (*s == '<') fputs("\\u003c", f);
        else fputc(*s, f);
}

static const char page_head[] =
    "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    "<meta name=\"generator\" content=\"kinegraph view\">\n<title>";

static const char page_style[] =
    "</title>\n<style>\n"
    "html,body{margin:0;height:100%;overflow:hidden;font:13px system-ui,sans-serif;background:#eef0f3}\n"
    "canvas{display:block}\n"
    "#bar{position:fixed;left:0;right:0;bottom:0;padding:6px 10px;background:rgba(255,255,255,.88);"
    "display:flex;gap:8px;align-items:center}\n"
    "#bar button{min-width:2.4em}\n#track{position:relative;flex:1;display:flex;flex-direction:column}\n"
    "#slider{width:100%;margin:0}\n#marks{position:relative;margin:0 8px}\n"
    ".mark{position:absolute;height:5px;min-width:2px;cursor:pointer;opacity:.85}\n#label{font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "#info{position:fixed;left:8px;top:6px;background:rgba(255,255,255,.8);padding:4px 8px;white-space:pre-wrap;"
    "max-width:45vw;overflow:hidden}\n"
    "</style>\n<script type=\"importmap\">{\"imports\":";

static const char page_body[] =
    "}</script>\n</head>\n<body data-kg-status=\"loading\">\n"
    "<div id=\"info\"></div>\n"
    "<div id=\"bar\"><button id=\"play\" title=\"play/pause (space)\">&#9654;</button>"
    "<button id=\"prev\" title=\"previous frame (&#8592;)\">&#9664;|</button>"
    "<button id=\"next\" title=\"next frame (&#8594;)\">|&#9654;</button>"
    "<div id=\"track\"><input id=\"slider\" type=\"range\" min=\"0\" max=\"0\" value=\"0\"><div id=\"marks\"></div></div>"
    "<span id=\"label\"></span>"
    "<label title=\"the camera follows the robot\"><input id=\"follow\" type=\"checkbox\" checked> follow</label>"
    "<label title=\"lines between the link frames\"><input id=\"bones\" type=\"checkbox\"> skeleton</label></div>\n"
    "<script type=\"application/json\" id=\"kg-data\">";

/* The viewer itself (a module: it imports three.js through the import map). */
static const char page_script[] =
    "</script>\n<script type=\"module\">\n"
    "const status = (s) => { if (!document.body.dataset.kgStatus.startsWith('error')) document.body.dataset.kgStatus = s; };\n"
    "window.addEventListener('error', (e) => status('error: ' + e.message));\n"
    "window.addEventListener('unhandledrejection', (e) => status('error: ' + e.reason));\n"
    "/* console errors make the status an error; warnings are kept in body[data-kg-warnings] */\n"
    "for (const level of ['error', 'warn']) {\n"
    "  const log = console[level].bind(console);\n"
    "  console[level] = (...a) => {\n"
    "    const text = a.map(String).join(' ');\n"
    "    if (level === 'error') status('error: ' + text);\n"
    "    else document.body.dataset.kgWarnings = (document.body.dataset.kgWarnings || '') + text + '\\n';\n"
    "    log(...a);\n"
    "  };\n"
    "}\n"
    "const THREE = await import('three');\n"
    "const { GLTFLoader } = await import('three/addons/loaders/GLTFLoader.js');\n"
    "const { OrbitControls } = await import('three/addons/controls/OrbitControls.js');\n"
    "const data = JSON.parse(document.getElementById('kg-data').textContent);\n"
    "const hash = new URLSearchParams(location.hash.slice(1));\n"
    "const $ = (id) => document.getElementById(id);\n"
    "const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });\n"
    "renderer.setPixelRatio(window.devicePixelRatio);\n"
    "/* #size=WxH: a picture of that size whatever the window (a headless browser's window for a\n"
    " * screenshot and for --dump-dom differ) */\n"
    "const fixed = /^(\\d+)x(\\d+)$/.exec(hash.get('size') || '');\n"
    "const width = () => (fixed ? +fixed[1] : innerWidth), height = () => (fixed ? +fixed[2] : innerHeight);\n"
    "renderer.setSize(width(), height());\n"
    "document.body.prepend(renderer.domElement);\n"
    "const scene = new THREE.Scene();\n"
    "scene.background = new THREE.Color(0xeef0f3);\n"
    "scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));\n"
    "const sun = new THREE.DirectionalLight(0xffffff, 1.6);\n"
    "sun.position.set(3, 6, 4);\n"
    "scene.add(sun);\n"
    "const camera = new THREE.PerspectiveCamera(40, width() / height(), 0.01, 1000);\n"
    "const controls = new OrbitControls(camera, renderer.domElement);\n"
    "const bin = Uint8Array.from(atob(data.glb), (c) => c.charCodeAt(0));\n"
    "const gltf = await new GLTFLoader().parseAsync(bin.buffer, '');\n"
    "const model = gltf.scene;\n"
    "scene.add(model);\n"
    "const frames = Math.max(1, data.frames), fps = data.fps || 30;\n"
    "const mixer = new THREE.AnimationMixer(model);\n"
    "if (gltf.animations.length) mixer.clipAction(gltf.animations[0]).play();\n"
    "const san = THREE.PropertyBinding.sanitizeNodeName;\n"
    "/* the camera frames the model at frame 0 */\n"
    "mixer.setTime(0);\n"
    "model.updateMatrixWorld(true);\n"
    "const box = new THREE.Box3().setFromObject(model);\n"
    "const linkNames = new Set(data.links.map(san));\n"
    "const links = [];\n"
    "model.traverse((o) => { if (linkNames.has(o.name)) links.push(o); });\n"
    "/* what the camera follows: the mean of the link frames */\n"
    "const rootPos = () => { const c = new THREE.Vector3(), p = new THREE.Vector3(); for (const o of links) c.add(o.getWorldPosition(p)); return links.length ? c.divideScalar(links.length) : c; };\n"
    "for (const o of links) box.expandByPoint(o.getWorldPosition(new THREE.Vector3()));\n"
    "if (box.isEmpty()) box.setFromCenterAndSize(new THREE.Vector3(), new THREE.Vector3(1, 1, 1));\n"

    "/* skeletons: lines between the link frames */\n"
    "const skeletons = [];\n"
    "function skeleton(links, colour, toggle) {\n"
    "  const pairs = links.filter((o) => links.includes(o.parent));\n"
    "  const geo = new THREE.BufferGeometry();\n"
    "  geo.setAttribute('position', new THREE.Float32BufferAttribute(new Float32Array(pairs.length * 6), 3));\n"
    "  const lines = new THREE.LineSegments(geo, new THREE.LineBasicMaterial({ color: colour, depthTest: false }));\n"
    "  lines.renderOrder = 1;\n"
    "  lines.frustumCulled = false;\n"
    "  scene.add(lines);\n"
    "  skeletons.push({ pairs, lines, toggle });\n"
    "}\n"
    "skeleton(links, 0xd03030, true);\n"
    "let hasMesh = false;\n"
    "model.traverse((o) => { if (o.isMesh) hasMesh = true; });\n"
    "$('bones').checked = !hasMesh || hash.has('skeleton');\n"
    "if (hash.has('nomesh')) model.traverse((o) => { if (o.isMesh) o.visible = false; });\n"
    "const a = new THREE.Vector3(), b = new THREE.Vector3();\n"
    "function updateBones() {\n"
    "  for (const { pairs, lines, toggle } of skeletons) {\n"
    "    lines.visible = !toggle || $('bones').checked;\n"
    "    if (!lines.visible) continue;\n"
    "    const p = lines.geometry.attributes.position;\n"
    "    pairs.forEach((o, i) => { o.getWorldPosition(a); o.parent.getWorldPosition(b); p.setXYZ(2 * i, a.x, a.y, a.z); p.setXYZ(2 * i + 1, b.x, b.y, b.z); });\n"
    "    p.needsUpdate = true;\n"
    "  }\n"
    "}\n"
    "/* the source clip of a retarget run, beside the robot at its scale (the report's leg scale, else\n"
    " * the robot's height over the clip's), played at the same times */\n"
    "const mixers = [mixer];\n"
    "if (data.source_glb) {\n"
    "  const sbin = Uint8Array.from(atob(data.source_glb), (c) => c.charCodeAt(0));\n"
    "  const sg = await new GLTFLoader().parseAsync(sbin.buffer, '');\n"
    "  const src = new THREE.Group();\n"
    "  src.add(sg.scene);\n"
    "  scene.add(src);\n"
    "  const smixer = new THREE.AnimationMixer(sg.scene);\n"
    "  if (sg.animations.length) { const act = smixer.clipAction(sg.animations[0]); act.setLoop(THREE.LoopOnce); act.clampWhenFinished = true; act.play(); }\n"
    "  smixer.setTime(0);\n"
    "  src.updateMatrixWorld(true);\n"
    "  const snames = new Set(data.source.links.map(san)), slinks = [];\n"
    "  sg.scene.traverse((o) => { if (snames.has(o.name)) slinks.push(o); });\n"
    "  const sbox = new THREE.Box3();\n"
    "  for (const o of slinks) sbox.expandByPoint(o.getWorldPosition(new THREE.Vector3()));\n"
    "  const h = box.max.y - box.min.y, sh = sbox.max.y - sbox.min.y;\n"
    "  const k = data.source.scale > 0 ? data.source.scale : sh > 0 ? h / sh : 1;\n"
    "  src.scale.setScalar(k);\n"
    "  /* its feet on the robot's ground, its middle beside the robot's, a robot height to the side */\n"
    "  const sc = sbox.getCenter(new THREE.Vector3()).multiplyScalar(k), rc = box.getCenter(new THREE.Vector3());\n"
    "  src.position.set(rc.x - sc.x - 0.9 * Math.max(h, 0.2), box.min.y - sbox.min.y * k, rc.z - sc.z);\n"
    "  src.updateMatrixWorld(true);\n"
    "  for (const o of slinks) box.expandByPoint(o.getWorldPosition(new THREE.Vector3()));\n"
    "  skeleton(slinks, 0x2060d0, false);\n"
    "  mixers.push(smixer);\n"
    "}\n"
    "const sphere = box.getBoundingSphere(new THREE.Sphere());\n"
    "const r = Math.max(sphere.radius, 0.05);\n"
    "const dist = r / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2)) * 1.15;\n"
    "controls.target.copy(sphere.center);\n"
    "camera.position.copy(sphere.center).add(new THREE.Vector3(1, 0.45, 1.4).normalize().multiplyScalar(dist));\n"
    "camera.near = dist / 100; camera.far = dist * 100; camera.updateProjectionMatrix();\n"
    "controls.update();\n"
    "const ground = Math.min(0, box.min.y);\n"
    "const step = Math.pow(10, Math.floor(Math.log10(r)));\n"
    "const cells = 2 * Math.ceil(4 * r / step);\n"
    "const grid = new THREE.GridHelper(cells * step, cells, 0x888888, 0xc4c4c4);\n"
    "grid.position.set(Math.round(sphere.center.x / step) * step, ground, Math.round(sphere.center.z / step) * step);\n"
    "grid.visible = !hash.has('nogrid');\n"
    "if (hash.has('noui')) for (const id of ['info', 'bar']) $(id).style.display = 'none';\n"
    "scene.add(grid);\n"
    "/* the timeline */\n"
    "const slider = $('slider');\n"
    "slider.max = frames - 1;\n"
    "let frame = 0, playing = frames > 1 && !hash.has('frame'), clock = 0, last = null;\n"
    "if (hash.has('frame')) frame = Math.min(frames - 1, Math.max(0, parseInt(hash.get('frame'), 10) || 0));\n"
    "let follow0 = rootPos();\n"
    "function show(f) {\n"
    "  frame = f;\n"
    "  const before = rootPos();\n"
    "  for (const x of mixers) x.setTime(f / fps);\n"
    "  model.updateMatrixWorld(true);\n"
    "  if ($('follow').checked) { const d = rootPos().sub(before); d.y = 0; camera.position.add(d); controls.target.add(d); }\n"
    "  slider.value = f;\n"
    "  $('label').textContent = `frame ${f + 1}/${frames}  ${(f / fps).toFixed(2)} s`;\n"
    "  updateBones();\n"
    "}\n"
    "function setPlaying(p) { playing = p && frames > 1; $('play').innerHTML = playing ? '&#10074;&#10074;' : '&#9654;'; last = null; clock = frame / fps; }\n"
    "slider.addEventListener('input', () => { setPlaying(false); show(+slider.value); });\n"
    "$('play').onclick = () => setPlaying(!playing);\n"
    "$('prev').onclick = () => { setPlaying(false); show((frame + frames - 1) % frames); };\n"
    "$('next').onclick = () => { setPlaying(false); show((frame + 1) % frames); };\n"
    "$('bones').onchange = updateBones;\n"
    "addEventListener('keydown', (e) => {\n"
    "  if (e.target.tagName === 'INPUT' && e.target.type !== 'checkbox' && e.target.type !== 'range') return;\n"
    "  if (e.key === ' ') { setPlaying(!playing); e.preventDefault(); }\n"
    "  else if (e.key === 'ArrowLeft') { $('prev').onclick(); e.preventDefault(); }\n"
    "  else if (e.key === 'ArrowRight') { $('next').onclick(); e.preventDefault(); }\n"
    "});\n"
    "if (frames < 2) for (const id of ['play', 'prev', 'next', 'slider']) $(id).disabled = true;\n"
    "/* the report's problems, as figures beside the model */\n"
    "const info = [data.title + (data.motion ? '  \\u2190 ' + data.motion : '') + `  (${frames} frames, ${fps.toFixed(1)}/s)`];\n"
    "if (data.source) info.push(`source (blue lines): ${data.source.title}`);\n"
    "const R = data.report;\n"
    "if (R) {\n"
    "  const n = (v, d = 1) => (typeof v === 'number' ? v.toFixed(d) : '-');\n"
    "  info.push(`pose error ${n(R.pose_error_mean_deg)} deg mean, ${n(R.pose_error_p95_deg)} p95`);\n"
    "  info.push(`foot slip ${n(R.foot_slip_max_mm, 2)} mm max, penetration ${n(R.penetration_max_mm, 2)} mm, hover ${n(R.hover_percent)} %`);\n"
    "  info.push(`self-collision frames ${R.self_collision_frames ?? '-'}, limit/velocity violations ${R.limit_violations ?? '-'}/${R.velocity_violations ?? '-'}`);\n"
    "  info.push(`ZMP outside ${n(R.zmp_outside_percent)} % of contact frames, CoM outside ${n(R.com_outside_percent)} %`);\n"
    "}\n"
    "/* per-frame problems: a row of bars under the slider per kind; a click goes to the bar's first frame */\n"
    "const colours = { 'joint limit': '#d08000', 'joint speed': '#b0a000', 'self-collision': '#d02020',\n"
    "  'deep self-collision': '#800000', 'left foot down': '#5a9a5a', 'right foot down': '#4a8aa0', 'foot slip': '#e040a0',\n"
    "  'penetration': '#7a4a20', 'hover': '#30a0e0', 'ZMP outside': '#e06000', 'COM outside': '#a06030', 'root jump': '#404040',\n"
    "  'hips low': '#2050c0' };\n"
    "(data.marks || []).forEach((mk, row) => {\n"
    "  const colour = colours[mk.kind] || '#8030c0';\n"
    "  info.push(`${mk.kind}: ${mk.frames} frames (${mk.detail})`);\n"
    "  for (const [a, b] of mk.ranges) {\n"
    "    const bar = document.createElement('div');\n"
    "    bar.className = 'mark';\n"
    "    bar.dataset.kind = mk.kind;\n"
    "    bar.style.background = colour;\n"
    "    bar.style.top = 6 * row + 'px';\n"
    "    bar.style.left = (100 * a / Math.max(1, frames - 1)) + '%';\n"
    "    bar.style.width = (100 * (b - a) / Math.max(1, frames - 1)) + '%';\n"
    "    bar.title = `${mk.kind}: frames ${a + 1}-${b + 1}`;\n"
    "    bar.onclick = () => { setPlaying(false); show(a); };\n"
    "    $('marks').appendChild(bar);\n"
    "  }\n"
    "  $('marks').style.height = 6 * (row + 1) + 'px';\n"
    "});\n"
    "info.push('three.js ' + data.three);\n"
    "$('info').textContent = info.join('\\n');\n"
    "addEventListener('resize', () => { camera.aspect = width() / height(); camera.updateProjectionMatrix(); renderer.setSize(width(), height()); });\n"
    "show(frame);\n"
    "setPlaying(playing);\n"
    "let first = true;\n"
    "renderer.setAnimationLoop((now) => {\n"
    "  if (playing) {\n"
    "    if (last !== null) clock += (now - last) / 1000;\n"
    "    last = now;\n"
    "    const f = Math.floor(clock * fps) % frames;\n"
    "    if (f !== frame) show(f);\n"
    "  }\n"
    "  controls.update();\n"
    "  renderer.render(scene, camera);\n"
    "  if (first) {\n"
    "    first = false;\n"
    "    /* the camera, for checks of the picture: world (three.js, Y up) to clip coordinates */\n"
    "    const pv = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);\n"
    "    document.body.dataset.kgCamera = JSON.stringify({ matrix: pv.elements, width: width(), height: height() });\n"
    "    status('ready');\n"
    "  }\n"
    "});\n"
    "</script>\n</body>\n</html>\n";

/* ---- per-frame problems, marked on the page's timeline ------------------------- */

/* Frames as ranges [[first, last], ...], appended in order. */
static void add_frame(json_t *ranges, int f) {
    json_t *last = json_array_get(ranges, json_array_size(ranges) - 1);
    if (last && json_integer_value(json_array_get(last, 1)) == f - 1) json_array_set_new(last, 1, json_integer(f));
    else json_array_append_new(ranges, json_pack("[i, i]", f, f));
}

static void add_mark(json_t *marks, const char *kind, json_t *ranges, int frames, const char *detail) {
    if (!frames) {
        json_decref(ranges);
        return;
    }
    json_array_append_new(marks, json_pack("{s:s, s:o, s:i, s:s}", "kind", kind, "ranges", ranges, "frames", frames,
                                           "detail", detail));
}

/* The frames where a limited joint (revolute, prismatic) is out of its position
 * limits (by more than 1e-6), and those where two links' collision geometry
 * meets (pairs neither adjacent, nor declared ignored, nor touching at the rest
 * pose; convex hulls, as `kinegraph collisions`). */
static json_t *frame_marks(const kg_model *m, const kg_motion *mo, kg_mesh_cache *meshes) {
    json_t *marks = json_array();
    if (!mo || mo->nframes < 1 || mo->nq != m->nq) return marks;
    kg_data *d = kg_data_new(m);
    if (!d) return marks;
    char detail[512] = "";
    /* joint limits */
    json_t *ranges = json_array();
    int n = 0;
    for (int f = 0; f < mo->nframes; f++) {
        const double *q = mo->q + (size_t)f * mo->nq;
        int out = 0;
        for (int j = 0; j < m->njoint && !out; j++) {
            const kg_joint *J = &m->joint[j];
            if (!kg_joint_is_limited(J) || J->nq != 1) continue;
            double v = q[J->qadr];
            if (v < J->lower - 1e-6 || v > J->upper + 1e-6) {
                out = 1;
                if (!n)
                    snprintf(detail, sizeof detail, "first at frame %d: %s = %.4g outside [%.4g, %.4g]", f + 1, J->name, v,
                             J->lower, J->upper);
            }
        }
        if (out) add_frame(ranges, f), n++;
    }
    add_mark(marks, "joint limit", ranges, n, detail);
    /* self-collision */
    kg_collision_model cm;
    kg_diags quiet; /* a collision mesh that cannot be read is left out, unsaid here */
    kg_diags_init(&quiet);
    if (kg_collision_model_build(m, meshes, &cm, &quiet) == 0) {
        kg_collision_work *w = kg_collision_work_new(&cm);
        unsigned char *check = calloc((size_t)cm.npair + 1, 1), *hit = calloc((size_t)cm.npair + 1, 1);
        if (w && check && hit && cm.npair > 0) {
            kg_fk(m, d); /* the rest pose */
            kg_self_collisions(&cm, d, w, NULL, hit);
            for (int p = 0; p < cm.npair; p++) check[p] = !cm.adjacent[p] && !cm.declared[p] && !hit[p];
            ranges = json_array(), n = 0;
            for (int f = 0; f < mo->nframes; f++) {
                kg_motion_pose(mo, f, d);
                kg_fk(m, d);
                memset(hit, 0, (size_t)cm.npair);
                if (kg_self_collisions(&cm, d, w, check, hit) > 0) {
                    if (!n)
                        for (int p = 0; p < cm.npair; p++)
                            if (hit[p]) {
                                snprintf(detail, sizeof detail, "first at frame %d: %s and %s", f + 1,
                                         m->link[cm.pair_a[p]].name, m->link[cm.pair_b[p]].name);
                                break;
                            }
                    add_frame(ranges, f), n++;
                }
            }
            add_mark(marks, "self-collision", ranges, n, detail);
        }
        free(check), free(hit);
        kg_collision_work_free(w);
        kg_collision_model_free(&cm);
    }
    kg_diags_clear(&quiet);
    kg_data_free(d);
    return marks;
}

/* ---- the retarget report's timeline (its per-frame flags), marked too ---------- */

/* The report's flags (kg_retarget_frame_flag_name) as the page names them;
 * contacts first, then the problems. */
static const char *const report_kinds[][2] = {
    {"contact_left", "left foot down"},   {"contact_right", "right foot down"},
    {"slip", "foot slip"},                {"penetration", "penetration"},
    {"hover", "hover"},                   {"self_collision", "self-collision"},
    {"self_collision_deep", "deep self-collision"}, {"zmp_outside", "ZMP outside"},
    {"com_outside", "COM outside"},       {"limit", "joint limit"},
    {"velocity", "joint speed"},          {"root_fast", "root jump"},
    {"seated", "seated on the floor"},   {"hips_low", "hips low"}};

/* One flag's runs [[a, b], ...] of report frames (dt_r apart) as runs of the
 * motion's frames (fps), into marks. */
static void add_report_mark(json_t *marks, const char *flag, const char *kind, json_t *runs, double k, int nframes) {
    json_t *ranges = json_array();
    int n = 0, last = -1;
    size_t i;
    json_t *r;
    json_array_foreach(runs, i, r) {
        json_int_t a = json_integer_value(json_array_get(r, 0)), b = json_integer_value(json_array_get(r, 1));
        int lo = (int)lround((double)a * k), hi = (int)lround((double)(b + 1) * k) - 1;
        if (hi < lo) hi = lo;
        if (lo <= last) lo = last + 1; /* a resampled run may meet the one before */
        if (hi > nframes - 1) hi = nframes - 1;
        for (int f = lo; f <= hi; f++) add_frame(ranges, f), n++;
        if (hi >= lo) last = hi;
    }
    char detail[160];
    snprintf(detail, sizeof detail, "the retarget report's \"%s\"", flag);
    if (!n) {
        json_decref(ranges);
        return;
    }
    json_t *mk = json_pack("{s:s, s:o, s:i, s:s, s:s}", "kind", kind, "ranges", ranges, "frames", n, "detail", detail,
                           "from", "report");
    if (!strncmp(flag, "contact", 7) || !strcmp(flag, "seated")) /* what the source does, not a problem */
        json_object_set_new(mk, "class", json_string("contact"));
    json_array_append_new(marks, mk);
}

/* The report's "timeline" onto the motion's frames, when the report covers
 * the same time as the motion (else said, and left out). Returns 1 when it
 * was used: the report's figures are then the page's only per-frame ones, so
 * its bars add up to its counts beside them. */
static int report_marks(json_t *marks, const char *report_json, const kg_motion *mo, const char *path, kg_diags *d) {
    json_t *rep = report_json ? json_loads(report_json, 0, NULL) : NULL, *tl = json_object_get(rep, "timeline");
    if (!json_is_object(tl)) {
        json_decref(rep);
        return 0;
    }
    double dt = json_number_value(json_object_get(rep, "frame_time"));
    json_int_t nr = json_integer_value(json_object_get(rep, "frames"));
    double fps = mo && mo->frame_time > 0 ? 1.0 / mo->frame_time : 0;
    int n = mo ? mo->nframes : 0;
    /* the same span of time: durations within a frame of either */
    double span_r = (double)(nr - 1) * dt, span_m = n > 0 && fps > 0 ? (n - 1) / fps : -1;
    if (!(dt > 0) || nr < 1 || n < 1 || !(fabs(span_r - span_m) <= 1.01 * fmax(dt, 1 / fps))) {
        kg_diag_add(d, KG_WARNING, "view.report_motion", path, 0, NULL,
                    "the report's timeline (%lld frames, %.4g s) is not this motion's (%d frames, %.4g s): "
                    "it is not marked",
                    (long long)nr, span_r, n, span_m);
        json_decref(rep);
        return 0;
    }
    for (size_t k = 0; k < sizeof report_kinds / sizeof *report_kinds; k++)
        add_report_mark(marks, report_kinds[k][0], report_kinds[k][1], json_object_get(tl, report_kinds[k][0]),
                        dt * fps, n);
    const char *key;
    json_t *runs;
    json_object_foreach(tl, key, runs) { /* flags of a later kinegraph, by their own names */
        size_t k = 0;
        while (k < sizeof report_kinds / sizeof *report_kinds && strcmp(key, report_kinds[k][0])) k++;
        if (k == sizeof report_kinds / sizeof *report_kinds) add_report_mark(marks, key, key, runs, dt * fps, n);
    }
    json_decref(rep);
    return 1;
}

json_t *kg_view_marks(const kg_model *m, const kg_motion *mo, const kg_view_options *v, const kg_export_options *o,
                      kg_diags *d) {
    json_t *marks = json_array();
    if (v->no_marks || report_marks(marks, v->report_json, mo, v->report_name, d)) return marks;
    kg_mesh_cache *own = o && o->meshes ? NULL : kg_mesh_cache_new();
    json_decref(marks);
    marks = frame_marks(m, mo, own ? own : o->meshes);
    if (own) kg_mesh_cache_free(own);
    return marks;
}

/* The glTF binary of m and mo, in memory (*buf malloc'd). */
static int glb_of(const kg_model *m, const kg_motion *mo, const kg_export_options *o, kg_ledger *l, kg_diags *d,
                  char **buf, size_t *n) {
    *buf = NULL, *n = 0;
    FILE *mem = open_memstream(buf, n);
    if (!mem) {
        kg_diag_add(d, KG_ERROR, "io.write", o ? o->path : NULL, 0, NULL, "out of memory: %s", strerror(errno));
        return -1;
    }
    kg_export_options go = {0};
    if (o) go = *o;
    go.path = NULL; /* a .glb: one buffer, nothing beside it */
    go.companions = NULL;
    int rc = kg_export_gltf(m, mo, &go, mem, l, d);
    if (fclose(mem) != 0 || rc != 0) {
        free(*buf);
        *buf = NULL;
        if (rc == 0) kg_diag_add(d, KG_ERROR, "io.write", o ? o->path : NULL, 0, NULL, "cannot hold the glTF in memory");
        return -1;
    }
    return 0;
}

static json_t *link_names(const kg_model *m) {
    json_t *links = json_array(); /* the real links, root first: the glTF's link nodes */
    for (int i = 0; i < m->nlink - m->nloop; i++)
        if (m->link[i].name) json_array_append_new(links, json_string(m->link[i].name));
    return links;
}

int kg_export_view(const kg_model *m, const kg_motion *mo, const kg_view_options *v, const kg_export_options *o,
                   FILE *f, kg_ledger *l, kg_diags *d) {
    if (!v || !v->three_imports || !*v->three_imports) {
        kg_diag_add(d, KG_ERROR, "view.three", o ? o->path : NULL, 0, NULL,
                    "three.js was not bundled into this build: the page cannot be written");
        return -1;
    }
    char *glb = NULL, *sglb = NULL;
    size_t nglb = 0, nsglb = 0;
    if (glb_of(m, mo, o, l, d, &glb, &nglb) != 0) return -1;
    if (v->source && glb_of(v->source, v->source_motion, o, NULL, d, &sglb, &nsglb) != 0) {
        free(glb);
        return -1;
    }
    char *title = page_name(v->title ? v->title : "model"), *motion = page_name(v->motion_name);
    char *source = page_name(v->source_name ? v->source_name : "source");
    fputs(page_head, f);
    fputs("kinegraph view: ", f);
    kg_xml_escape(f, title);
    fputs(page_style, f);
    fputs(v->three_imports, f);
    fputs(page_body, f);
    /* {"title", "motion", "links", "frames", "fps", "three", "report", "glb"} */
    json_t *meta = json_object();
    json_object_set_new(meta, "title", json_string(title));
    json_object_set_new(meta, "motion", motion ? json_string(motion) : json_null());
    json_object_set_new(meta, "links", link_names(m));
    if (v->source)
        json_object_set_new(meta, "source",
                            json_pack("{s:s, s:o, s:f}", "title", source, "links",
                                      link_names(v->source), "scale", v->source_scale > 0 ? v->source_scale : 0.0));
    json_object_set_new(meta, "frames", json_integer(mo ? mo->nframes : 1));
    json_object_set_new(meta, "fps", json_real(mo && mo->frame_time > 0 ? 1.0 / mo->frame_time : 30.0));
    json_object_set_new(meta, "three", json_string(v->three_version ? v->three_version : "?"));
    json_object_set_new(meta, "marks", v->marks ? json_incref(v->marks) : kg_view_marks(m, mo, v, o, d));
    char *s = json_dumps(meta, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(meta);
    free(title), free(motion), free(source);
    if (!s) {
        free(glb), free(sglb);
        kg_diag_add(d, KG_ERROR, "io.write", o ? o->path : NULL, 0, NULL, "out of memory");
        return -1;
    }
    s[strlen(s) - 1] = '\0'; /* the closing brace: report and glb follow */
    put_json_in_script(f, s);
    free(s);
    fputs(",\"report\":", f);
    put_json_in_script(f, v->report_json ? v->report_json : "null");
    fputs(",\"glb\":\"", f);
    kg_base64_write(f, (const unsigned char *)glb, nglb);
    fputs("\",\"source_glb\":", f);
    if (sglb) {
        fputc('"', f);
        kg_base64_write(f, (const unsigned char *)sglb, nsglb);
        fputc('"', f);
    } else {
        fputs("null", f);
    }
    fputs("}", f);
    free(glb), free(sglb);
    fputs(page_script, f);
    return ferror(f) ? -1 : 0;
}
