//! texelflow in a browser (issue 33): the library compiled to `wasm32-unknown-unknown`, its
//! GPU path on the page's WebGPU adapter and its CPU twins beside it, for the playground in
//! `web/` (built by `scripts/build-web.sh`). The page gets the catalogue from the registry
//! (`catalogue`), opens an `Engine` once and runs specs on RGBA8 pixels (a canvas's
//! `ImageData`), on the GPU or on the CPU twins. Live frames (`Engine::live`, the camera) never
//! leave the GPU: each video frame is copied into a texture there, the chain's prepared run
//! reads it and the result is copied into a WebGPU canvas.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use texelflow::{Backend, Gpu, Image, Pipeline, PixelFormat, RunOptions, Value};
use wasm_bindgen::prelude::*;

#[cfg(target_arch = "wasm32")]
mod live;
#[cfg(target_arch = "wasm32")]
pub use live::Live;

/// The filter catalogue as JSON (`texelflow::registry::catalogue_json`): names, families,
/// docs, inputs, outputs and parameters with their defaults and ranges.
#[wasm_bindgen]
pub fn catalogue() -> String {
    texelflow::registry::catalogue_json().to_string()
}

/// What a run gave: the image (RGBA8, for a canvas) or data (JSON), and its wall time.
#[wasm_bindgen]
pub struct RunOutput {
    width: u32,
    height: u32,
    rgba: Vec<u8>,
    data: Option<String>,
    ms: f64,
    device: String,
    nodes: String,
}

#[wasm_bindgen]
impl RunOutput {
    /// The image's width (0 where the run ends in data).
    #[wasm_bindgen(getter)]
    pub fn width(&self) -> u32 {
        self.width
    }
    /// The image's height.
    #[wasm_bindgen(getter)]
    pub fn height(&self) -> u32 {
        self.height
    }
    /// The image's pixels, RGBA8 rows (a copy).
    #[wasm_bindgen(getter)]
    pub fn rgba(&self) -> Vec<u8> {
        self.rgba.clone()
    }
    /// The data a run ending in an analysis gave, as JSON; `undefined` for an image.
    #[wasm_bindgen(getter)]
    pub fn data(&self) -> Option<String> {
        self.data.clone()
    }
    /// Wall time of the run, ms (upload, kernels and readback).
    #[wasm_bindgen(getter)]
    pub fn ms(&self) -> f64 {
        self.ms
    }
    /// Where it ran: `gpu` or `cpu`.
    #[wasm_bindgen(getter)]
    pub fn device(&self) -> String {
        self.device.clone()
    }
    /// Per node (fused nodes joined by `+`), GPU time in ms from timestamp queries, as JSON
    /// `[{"label": ..., "ms": ...}]`; `[]` where the device has no timestamps.
    #[wasm_bindgen(getter)]
    pub fn nodes(&self) -> String {
        self.nodes.clone()
    }
}

/// The engine of a page: the WebGPU device when the browser has one, and the images a spec
/// may name (`with=NAME`).
#[wasm_bindgen]
pub struct Engine {
    gpu: Option<Arc<Gpu>>,
    note: String,
    images: Arc<Mutex<HashMap<String, Image>>>,
}

impl Engine {
    /// The open GPU, or the line a page shows without one.
    #[cfg(target_arch = "wasm32")]
    fn need_gpu(&self, what: &str) -> Result<Arc<Gpu>, JsError> {
        self.gpu
            .clone()
            .ok_or_else(|| JsError::new(&format!("{what} need WebGPU, which this page has not")))
    }
}

#[wasm_bindgen]
impl Engine {
    /// Opens the page's WebGPU adapter; without one the engine runs the CPU twins and
    /// `note` says why.
    pub async fn open() -> Engine {
        // a panic's message on the console, not only wasm's "unreachable"
        #[cfg(target_arch = "wasm32")]
        std::panic::set_hook(Box::new(|p| {
            web_sys::console::error_1(&p.to_string().into());
        }));
        let (gpu, note) = match Gpu::new_async(&Default::default()).await {
            Ok(g) => {
                // browsers may keep the adapter's name to themselves
                let i = g.info();
                let name = [i.name.as_str(), i.driver.as_str()]
                    .into_iter()
                    .find(|s| !s.is_empty())
                    .map_or(String::new(), |n| format!(" {n}"));
                let note = format!("WebGPU:{name} ({} device)", i.device_type.to_lowercase());
                (Some(g), note)
            }
            Err(e) => (
                None,
                format!("no WebGPU here ({e}): the CPU twins run instead"),
            ),
        };
        Engine {
            gpu,
            note,
            images: Arc::default(),
        }
    }

    /// Whether a GPU is open.
    #[wasm_bindgen(getter)]
    pub fn gpu(&self) -> bool {
        self.gpu.is_some()
    }

    /// The device's name, or why there is none.
    #[wasm_bindgen(getter)]
    pub fn note(&self) -> String {
        self.note.clone()
    }

    /// Keeps an RGBA8 image under `name`, for specs that name it (`with=NAME`).
    pub fn set_image(
        &self,
        name: &str,
        width: u32,
        height: u32,
        rgba: Vec<u8>,
    ) -> Result<(), JsError> {
        let img = Image::from_u8(width, height, PixelFormat::Rgba8, rgba).map_err(js)?;
        self.images
            .lock()
            .map_err(|_| JsError::new("the image table is poisoned"))?
            .insert(name.to_string(), img);
        Ok(())
    }

    /// Runs `spec` on an RGBA8 image: on the GPU unless `cpu` is set or there is none.
    /// Resolves to a `RunOutput`; rejects with one line saying what is wrong.
    pub fn run(
        &self,
        spec: String,
        width: u32,
        height: u32,
        rgba: Vec<u8>,
        cpu: bool,
    ) -> js_sys::Promise {
        let gpu = if cpu { None } else { self.gpu.clone() };
        let images = self.images.clone();
        wasm_bindgen_futures::future_to_promise(async move {
            run(spec, (width, height, rgba), gpu, images)
                .await
                .map(JsValue::from)
                .map_err(|e| JsValue::from(js(e)))
        })
    }
}

async fn run(
    spec: String,
    (width, height, rgba): (u32, u32, Vec<u8>),
    gpu: Option<Arc<Gpu>>,
    images: Arc<Mutex<HashMap<String, Image>>>,
) -> texelflow::Result<RunOutput> {
    let input = Image::from_u8(width, height, PixelFormat::Rgba8, rgba)?;
    let pipe = parse(&spec, &images)?;
    // per-node GPU times where the device has timestamp queries
    let timings = gpu.as_ref().is_some_and(|g| g.has_timestamps());
    let (backend, device) = match gpu {
        Some(g) => (Backend::Gpu(g), "gpu"),
        None => (Backend::Cpu, "cpu"),
    };
    let opts = RunOptions {
        timings,
        ..Default::default()
    };
    let clock = js_sys::Date::now();
    let result = pipe.run_async(&backend, &input, &opts).await?;
    let nodes = serde_json::Value::from(
        result
            .timings
            .iter()
            .map(|t| serde_json::json!({"label": t.label, "ms": t.ms}))
            .collect::<Vec<_>>(),
    )
    .to_string();
    let ms = js_sys::Date::now() - clock;
    let value = result
        .outputs
        .into_iter()
        .last()
        .map(|(_, v)| v)
        .ok_or_else(|| texelflow::Error::invalid("the pipeline gave nothing"))?;
    Ok(match value {
        Value::Image(img) => {
            let rgba = img.convert(PixelFormat::Rgba8);
            RunOutput {
                width: rgba.width(),
                height: rgba.height(),
                rgba: rgba.as_u8().to_vec(),
                data: None,
                ms,
                device: device.into(),
                nodes,
            }
        }
        Value::Data(d) => RunOutput {
            width: 0,
            height: 0,
            rgba: Vec::new(),
            data: Some(texelflow::json::data_json(&d).to_string()),
            ms,
            device: device.into(),
            nodes,
        },
    })
}

/// `spec` parsed, with the images the page named (`Engine::set_image`) for its `with=NAME`.
fn parse(spec: &str, images: &Mutex<HashMap<String, Image>>) -> texelflow::Result<Pipeline> {
    let mut load = |name: &str| -> texelflow::Result<Image> {
        images
            .lock()
            .ok()
            .and_then(|m| m.get(name).cloned())
            .ok_or_else(|| texelflow::Error::Image(format!("no image named `{name}` on this page")))
    };
    Pipeline::parse(spec, &mut load)
}

/// A texelflow error as one line for the page.
fn js(e: texelflow::Error) -> JsError {
    JsError::new(&e.to_string())
}
