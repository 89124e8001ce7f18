//! Perlin noise between two colours. Matches GPUImage's `GPUImagePerlinNoiseFilter` (aoce's
//! PerlinNoise): its parameters (colorStart, colorFinish, scale) and mapping
//! `start + (finish - start) * (noise + 1) / 2` at `textureCoordinate * scale`.
//!
//! The noise is Ken Perlin's improved gradient noise in 2-D (quintic fade, gradients
//! (±1, ±1), (±1, 0), (0, ±1)); the gradient of a lattice point comes from an integer hash
//! instead of GPUImage's floating-point mod-289 permutation polynomial, which loses precision
//! differently on different GPUs. So the pattern is not GPUImage's pixel for pixel (same
//! scale, same character), and the GPU and the CPU twin compute the same f32 operations.

crate::generator_filter! {
    /// Smooth gradient noise mixing two colours.
    pub struct PerlinNoise;
    name: "perlin_noise",
    gpuimage: "GPUImagePerlinNoiseFilter",
    summary: "Perlin gradient noise mixing color_start and color_finish, the input's size (or width x height).",
    doc: "n = 2-D improved Perlin noise at the pixel centre's normalised coordinate times `scale` (lattice cells of \
          1/scale of the image; gradients picked by an integer hash of the lattice point, quintic fade); the colour is \
          color_start + (color_finish - color_start) * clamp((n + 1) / 2, 0, 1), straight alpha. Scale 0 gives the \
          middle colour everywhere.",
    params: {
        color_start: rgba = [0.0, 0.0, 0.0, 1.0] => "colour where the noise is lowest: red, green, blue, alpha in [0, 1]",
        color_finish: rgba = [1.0, 1.0, 1.0, 1.0] => "colour where the noise is highest",
        scale: float(0.0, 256.0) = 8.0 => "lattice cells across the image (GPUImage's scale); at most 256: finer noise is below a pixel at 4K, and f32 positions lose the precision GPU and CPU agree on",
    },
    wgsl: "let q = at_uv(at) * p.scale;
    let cell = floor(q);
    let f = q - cell;
    let ic = vec2<u32>(cell);
    var dots = array<f32, 4>(0.0, 0.0, 0.0, 0.0);
    for (var c = 0u; c < 4u; c++) {
        let o = vec2<u32>(c & 1u, c >> 1u);
        let lp = ic + o;
        var h = (lp.x * 0x8da6b343u) ^ (lp.y * 0xd8163841u);
        h = (h ^ (h >> 16u)) * 0x7feb352du;
        h = (h ^ (h >> 15u)) * 0x846ca68bu;
        h = h ^ (h >> 16u);
        let k = h & 7u;
        let d = f - vec2<f32>(o);
        var g = vec2<f32>(select(1.0, -1.0, (k & 1u) == 1u), select(1.0, -1.0, (k & 2u) == 2u));
        if (k >= 4u) {
            let s = select(1.0, -1.0, (k & 1u) == 1u);
            g = select(vec2<f32>(s, 0.0), vec2<f32>(0.0, s), (k & 2u) == 2u);
        }
        dots[c] = g.x * d.x + g.y * d.y;
    }
    let w = f * f * f * (f * (f * 6.0 - 15.0) + 10.0);
    let a = dots[0] + w.x * (dots[1] - dots[0]);
    let b = dots[2] + w.x * (dots[3] - dots[2]);
    let n = a + w.y * (b - a);
    let t = clamp((n + 1.0) * 0.5, 0.0, 1.0);
    return p.color_start + (p.color_finish - p.color_start) * t;",
    cpu: |f, at| {
        let uv = at.uv();
        let q = [uv[0] * f.scale, uv[1] * f.scale];
        let cell = [q[0].floor(), q[1].floor()];
        let fr = [q[0] - cell[0], q[1] - cell[1]];
        let ic = [cell[0] as u32, cell[1] as u32];
        let mut dots = [0f32; 4];
        for (c, dot) in dots.iter_mut().enumerate() {
            let o = [(c & 1) as u32, (c >> 1) as u32];
            let (lx, ly) = (ic[0].wrapping_add(o[0]), ic[1].wrapping_add(o[1]));
            let mut h = lx.wrapping_mul(0x8da6b343) ^ ly.wrapping_mul(0xd8163841);
            h = (h ^ (h >> 16)).wrapping_mul(0x7feb352d);
            h = (h ^ (h >> 15)).wrapping_mul(0x846ca68b);
            h ^= h >> 16;
            let k = h & 7;
            let d = [fr[0] - o[0] as f32, fr[1] - o[1] as f32];
            let sign = |bit: u32| if k & bit == bit { -1.0f32 } else { 1.0 };
            let g = if k >= 4 {
                let s = sign(1);
                if k & 2 == 2 { [0.0, s] } else { [s, 0.0] }
            } else {
                [sign(1), sign(2)]
            };
            *dot = g[0] * d[0] + g[1] * d[1];
        }
        let fade = |v: f32| v * v * v * (v * (v * 6.0 - 15.0) + 10.0);
        let w = [fade(fr[0]), fade(fr[1])];
        let a = dots[0] + w[0] * (dots[1] - dots[0]);
        let b = dots[2] + w[0] * (dots[3] - dots[2]);
        let n = a + w[1] * (b - a);
        let t = ((n + 1.0) * 0.5).clamp(0.0, 1.0);
        std::array::from_fn(|k| f.color_start[k] + (f.color_finish[k] - f.color_start[k]) * t)
    },
}
