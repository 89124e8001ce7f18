//! Colour halftone: a dot screen per ink. Matches MetalPetal's `MTIColorHalftoneFilter`.

/// Cosines and sines of the three screens' angles (degrees), computed once for both sides.
fn rotations(angles: [f32; 3]) -> ([f32; 4], [f32; 4]) {
    let r = angles.map(|a| a.to_radians());
    (
        [r[0].cos(), r[1].cos(), r[2].cos(), 0.0],
        [r[0].sin(), r[1].sin(), r[2].sin(), 0.0],
    )
}

crate::remap_filter! {
    /// Cyan, magenta and yellow dot screens at their own angles, dot sizes from R, G and B.
    pub struct ColorHalftone;
    name: "color_halftone",
    gpuimage: "",
    summary: "Colour halftone (MetalPetal's): cyan, magenta and yellow dot screens at their own angles.",
    doc: "Per channel, as MetalPetal: positions (pixels) turned by the channel's angle fall in square cells of scale pixels; \
          the input is read (bilinear) at the cell centre, and a dot of diameter scale * sqrt(2) * (1 - value) drawn \
          there; the ink at a pixel is the coverage of its cell's dot and of the nearest neighbouring cell's dot (the one \
          across the nearest cell edge), and the channel is (1 - ink) (1 - ink of the neighbour); alpha kept. Defaults \
          are the classic screen angles for cyan (R), magenta (G) and yellow (B), 15, 75 and 0 degrees (MetalPetal: 45 \
          for all three); no black screen, as MetalPetal. Coverage is the distance ramp clamp(radius - d + 0.5, 0, 1) \
          rather than MetalPetal's four sub-samples, and the neighbour is chosen in the cell's own frame (MetalPetal \
          rotates the offset the other way; the same at its 45 degrees).",
    params: {
        scale: float(1.0, 1024.0) = 20.0 => "cell size in pixels",
        angles: vec3(-360.0, 360.0) = [15.0, 75.0, 0.0] => "screen angles in degrees for R (cyan), G (magenta), B (yellow)",
    },
    uniform: |f| {
        scale: f32 = f.scale,
        cosines: [f32; 4] = rotations(f.angles).0,
        sines: [f32; 4] = rotations(f.angles).1,
    },
    tolerance: crate::filters::registry::Tolerance {
        max_diff: 16,
        why: "a pixel centre within f32 rounding of a rotated cell's edge may take the neighbouring cell on one side \
              (the rotations round differently on GPUs and in the twin); the overlapping dots keep the difference \
              small (12 levels seen on an H200 at scale 1.09; exact ties are nudged away, see tie_floor)",
    },
    helpers: "fn halftone_ink(t: vec2<f32>, s: vec2<f32>, size: vec2<f32>, scale: f32, channel: i32) -> f32 {
    let v = sample_at(s / size)[channel];
    let e = t - s;
    return clamp(scale * 0.7071068 * (1.0 - v) - sqrt(e.x * e.x + e.y * e.y) + 0.5, 0.0, 1.0);
}
fn halftone_channel(t: vec2<f32>, size: vec2<f32>, scale: f32, cr: f32, sr: f32, channel: i32) -> f32 {
    let a = vec2<f32>(cr * t.x + sr * t.y, cr * t.y - sr * t.x);
    let m = (tie_floor2(a / scale) + 0.5) * scale;
    let s = vec2<f32>(cr * m.x - sr * m.y, sr * m.x + cr * m.y);
    let e = t - s;
    let q = vec2<f32>(cr * e.x + sr * e.y, cr * e.y - sr * e.x);
    // the neighbouring cell across the nearest side; pixels on a diagonal (exact ties at angle 0) go
    // to the same side on every device: the comparisons need a margin of 1e-4 pixels
    var d = vec2<f32>(1.0, 0.0);
    if (q.y > q.x + 1e-4) {
        d = select(vec2<f32>(0.0, 1.0), vec2<f32>(-1.0, 0.0), -q.x > q.y + 1e-4);
    } else {
        d = select(vec2<f32>(1.0, 0.0), vec2<f32>(0.0, -1.0), -q.y > q.x + 1e-4);
    }
    let n = s + vec2<f32>(cr * d.x - sr * d.y, sr * d.x + cr * d.y) * scale;
    return (1.0 - halftone_ink(t, s, size, scale, channel)) * (1.0 - halftone_ink(t, n, size, scale, channel));
}",
    wgsl: "return uv;",
    cpu: |_f, uv, _| uv,
    post_wgsl: "let t = uv * size;
    return vec4<f32>(
        halftone_channel(t, size, p.scale, p.cosines.x, p.sines.x, 0),
        halftone_channel(t, size, p.scale, p.cosines.y, p.sines.y, 1),
        halftone_channel(t, size, p.scale, p.cosines.z, p.sines.z, 2),
        c.a);",
    post: |f, c, uv, size, sample| {
        let t = [uv[0] * size[0], uv[1] * size[1]];
        let (cos, sin) = rotations(f.angles);
        #[allow(clippy::approx_constant, reason = "the WGSL's literal 0.7071068, one f32 ulp above FRAC_1_SQRT_2")]
        let ink = |s: [f32; 2], ch: usize| {
            let v = sample([s[0] / size[0], s[1] / size[1]])[ch];
            let e = [t[0] - s[0], t[1] - s[1]];
            (f.scale * 0.7071068 * (1.0 - v) - (e[0] * e[0] + e[1] * e[1]).sqrt() + 0.5).clamp(0.0, 1.0)
        };
        let channel = |ch: usize| {
            let (cr, sr) = (cos[ch], sin[ch]);
            let a = [cr * t[0] + sr * t[1], cr * t[1] - sr * t[0]];
            let m = [(crate::filters::tie_floor(a[0] / f.scale) + 0.5) * f.scale, (crate::filters::tie_floor(a[1] / f.scale) + 0.5) * f.scale];
            let s = [cr * m[0] - sr * m[1], sr * m[0] + cr * m[1]];
            let e = [t[0] - s[0], t[1] - s[1]];
            let q = [cr * e[0] + sr * e[1], cr * e[1] - sr * e[0]];
            let d: [f32; 2] = if q[1] > q[0] + 1e-4 {
                if -q[0] > q[1] + 1e-4 { [-1.0, 0.0] } else { [0.0, 1.0] }
            } else if -q[1] > q[0] + 1e-4 {
                [0.0, -1.0]
            } else {
                [1.0, 0.0]
            };
            let n = [s[0] + (cr * d[0] - sr * d[1]) * f.scale, s[1] + (sr * d[0] + cr * d[1]) * f.scale];
            (1.0 - ink(s, ch)) * (1.0 - ink(n, ch))
        };
        [channel(0), channel(1), channel(2), c[3]]
    },
}
