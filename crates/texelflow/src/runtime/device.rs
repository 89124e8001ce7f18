//! Which adapter a run opens (issue 34): the device selector (`--device`, Python's `adapter=`,
//! `GpuOptions::device`), the one order adapters are numbered in, `CUDA_VISIBLE_DEVICES`'s
//! meaning, and the choice itself. Everything here is pure over a list of adapter descriptions
//! (`AdapterSummary`), so the rules are tested against made-up hosts; `context.rs` fills the list
//! from wgpu and opens what is chosen.
//!
//! **The order.** Hardware GPUs (discrete, integrated, virtual) first, by PCI bus id (those
//! without one after those with one), then the rest (software rasterizers such as lavapipe,
//! llvmpipe, SwiftShader, WARP, and unknown types); ties keep the type order (discrete first),
//! native backends before GL, then wgpu's enumeration order. An adapter's index is its position
//! in that order: on a host whose GPUs are all NVIDIA's, index N is CUDA's device N under
//! `CUDA_DEVICE_ORDER=PCI_BUS_ID`.

use std::fmt;
use std::str::FromStr;

use crate::error::{Error, Result};

/// NVIDIA's PCI vendor id.
pub const NVIDIA_VENDOR: u32 = 0x10de;

/// An adapter the system offers (`Gpu::adapters`), in the documented order (the module's
/// docs: hardware GPUs by PCI bus id first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdapterSummary {
    /// Position in the order (`DeviceSelector::Index`, the index `texelflow info` prints).
    pub index: usize,
    /// Adapter name.
    pub name: String,
    /// vulkan, metal, dx12 or gl.
    pub backend: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu (a software rasteriser such as lavapipe) or Other.
    pub device_type: String,
    /// Driver name.
    pub driver: String,
    /// PCI vendor id (0x10de: NVIDIA; 0 where the backend does not say).
    pub vendor: u32,
    /// PCI bus id as the driver reports it, `0000:65:00.0` (Vulkan's `VK_EXT_pci_bus_info`);
    /// `None` where the backend or driver does not say (software rasterizers, Metal, GL).
    pub pci_bus_id: Option<String>,
    /// The device's UUID (Vulkan's `VkPhysicalDeviceIDProperties::deviceUUID`, which for an
    /// NVIDIA GPU is the UUID CUDA and nvidia-smi print); `None` off Vulkan.
    pub uuid: Option<[u8; 16]>,
}

impl AdapterSummary {
    /// The UUID as nvidia-smi and CUDA print it: `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
    pub fn uuid_string(&self) -> Option<String> {
        self.uuid.map(|u| format!("GPU-{}", format_uuid(&u)))
    }

    /// Whether it is a software rasterizer (device type Cpu: lavapipe, llvmpipe, SwiftShader, WARP).
    pub fn is_software(&self) -> bool {
        self.device_type == "Cpu"
    }

    /// Whether it is an NVIDIA GPU (vendor 0x10de).
    pub fn is_nvidia(&self) -> bool {
        self.vendor == NVIDIA_VENDOR
    }

    /// Whether it is a hardware GPU (discrete, integrated or virtual).
    fn is_hardware(&self) -> bool {
        matches!(
            self.device_type.as_str(),
            "DiscreteGpu" | "IntegratedGpu" | "VirtualGpu"
        )
    }

    /// The parsed PCI bus id.
    fn pci(&self) -> Option<PciBusId> {
        self.pci_bus_id.as_deref().and_then(|s| s.parse().ok())
    }

    /// How `Gpu::new` ranks it by default, lower first: discrete, integrated, virtual,
    /// software, other; a native backend before GL.
    fn rank(&self) -> (u32, u32) {
        let t = match self.device_type.as_str() {
            "DiscreteGpu" => 0,
            "IntegratedGpu" => 1,
            "VirtualGpu" => 2,
            "Cpu" => 3,
            _ => 4,
        };
        (t, u32::from(self.backend == "gl"))
    }

    /// Its index, name and PCI bus id, for error messages that list what exists.
    fn short(&self) -> String {
        let mut s = format!("{} `{}`", self.index, self.name);
        if let Some(p) = &self.pci_bus_id {
            s += &format!(" {p}");
        }
        s
    }
}

/// `u` as 8-4-4-4-12 lower-case hex digits.
fn format_uuid(u: &[u8; 16]) -> String {
    let h: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// Puts `adapters` (in wgpu's enumeration order) into the documented order and numbers them.
pub fn order_adapters(adapters: Vec<AdapterSummary>) -> Vec<AdapterSummary> {
    let order = adapter_order(&adapters);
    let mut slots: Vec<Option<AdapterSummary>> = adapters.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|at| slots.get_mut(at).and_then(Option::take))
        .enumerate()
        .map(|(index, a)| AdapterSummary { index, ..a })
        .collect()
}

/// The positions of `adapters` (in wgpu's enumeration order) in the documented order.
pub(crate) fn adapter_order(adapters: &[AdapterSummary]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..adapters.len()).collect();
    order.sort_by_key(|&i| {
        let a = &adapters[i];
        let pci = a.pci();
        (u32::from(!a.is_hardware()), pci.is_none(), pci, a.rank(), i)
    });
    order
}

/// A PCI bus id, `domain:bus:device.function` (hex): `0000:65:00.0`, as CUDA prints it,
/// nvidia-smi's `00000000:65:00.0` and the short `65:00.0` (domain 0) alike, in either case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PciBusId {
    /// PCI domain (segment).
    pub domain: u32,
    /// Bus.
    pub bus: u8,
    /// Device.
    pub device: u8,
    /// Function.
    pub function: u8,
}

impl FromStr for PciBusId {
    type Err = Error;
    fn from_str(s: &str) -> Result<PciBusId> {
        let bad = || Error::BadDevice(format!("`{s}` is not a PCI bus id (like 0000:65:00.0)"));
        let hex = |p: &str, max: usize| {
            if p.is_empty() || p.len() > max || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
                None
            } else {
                u32::from_str_radix(p, 16).ok()
            }
        };
        let (head, function) = s.trim().rsplit_once('.').ok_or_else(bad)?;
        let parts: Vec<&str> = head.split(':').collect();
        let (domain, bus, device) = match parts.as_slice() {
            [b, d] => (Some(0), hex(b, 2), hex(d, 2)),
            [dom, b, d] => (hex(dom, 8), hex(b, 2), hex(d, 2)),
            _ => return Err(bad()),
        };
        let function = hex(function, 1).filter(|&f| f < 8);
        match (domain, bus, device, function) {
            (Some(domain), Some(bus), Some(device), Some(function)) if device < 32 => {
                Ok(PciBusId {
                    domain,
                    bus: bus as u8,
                    device: device as u8,
                    function: function as u8,
                })
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for PciBusId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:04x}:{:02x}:{:02x}.{}",
            self.domain, self.bus, self.device, self.function
        )
    }
}

/// Which adapter to open (`GpuOptions::device`; the CLI's `--device`, Python's `adapter=`),
/// parsed from text by `str::parse`: an index (`1`), a PCI bus id (`0000:65:00.0`, `65:00.0`),
/// a UUID (`GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` as nvidia-smi and CUDA print it, or its
/// 32 hex digits with or without dashes), else a case-insensitive substring of the adapter's
/// name (where several names match, the first in the order: the module's docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceSelector {
    /// The adapter at this position of the order (`texelflow info` lists it).
    Index(usize),
    /// The adapter on this PCI bus id.
    PciBusId(PciBusId),
    /// The adapter with this device UUID.
    Uuid([u8; 16]),
    /// The first adapter whose name contains this, ignoring case.
    Name(String),
    /// CUDA's device N: the Nth NVIDIA adapter (vendor 0x10de) in the order, which is CUDA's
    /// under `CUDA_DEVICE_ORDER=PCI_BUS_ID` (and CUDA's default order for identical GPUs). An
    /// index of `CUDA_VISIBLE_DEVICES` means this; it has no text form of its own.
    CudaIndex(usize),
}

impl FromStr for DeviceSelector {
    type Err = Error;
    fn from_str(text: &str) -> Result<DeviceSelector> {
        let s = text.trim();
        if s.is_empty() {
            return Err(Error::BadDevice(
                "an empty device: give an index, a PCI bus id, a UUID or part of a name".into(),
            ));
        }
        if s.bytes().all(|b| b.is_ascii_digit()) {
            return s
                .parse()
                .map(DeviceSelector::Index)
                .map_err(|_| Error::BadDevice(format!("device index `{s}` is too large")));
        }
        let lower = s.to_ascii_lowercase();
        if lower.starts_with("mig-") {
            return Err(Error::BadDevice(format!(
                "`{s}` is a MIG instance: Vulkan cannot open one (select the whole GPU by index, PCI bus id or UUID)"
            )));
        }
        if let Some(rest) = lower.strip_prefix("gpu-") {
            return parse_uuid(rest).map(DeviceSelector::Uuid).ok_or_else(|| {
                Error::BadDevice(format!(
                    "`{s}` is not a GPU UUID (GPU- and 32 hex digits, as nvidia-smi -L prints them)"
                ))
            });
        }
        if let Some(u) = parse_uuid(&lower) {
            return Ok(DeviceSelector::Uuid(u));
        }
        if let Ok(p) = s.parse::<PciBusId>() {
            return Ok(DeviceSelector::PciBusId(p));
        }
        Ok(DeviceSelector::Name(s.to_string()))
    }
}

/// 32 hex digits, with or without dashes (lower-case input).
fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    if !s.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-') {
        return None;
    }
    let hex: Vec<u8> = s.bytes().filter(|&b| b != b'-').collect();
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, pair) in hex.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

impl fmt::Display for DeviceSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeviceSelector::Index(i) => write!(f, "{i}"),
            DeviceSelector::PciBusId(p) => write!(f, "{p}"),
            DeviceSelector::Uuid(u) => write!(f, "GPU-{}", format_uuid(u)),
            DeviceSelector::Name(n) => write!(f, "{n}"),
            DeviceSelector::CudaIndex(i) => write!(f, "CUDA device {i}"),
        }
    }
}

/// What `CUDA_VISIBLE_DEVICES` asks for (`DeviceSelector::from_cuda_visible_devices`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CudaVisible {
    /// Its first entry: `GPU-<uuid>` (`DeviceSelector::Uuid`) or an index
    /// (`DeviceSelector::CudaIndex`).
    Device(DeviceSelector),
    /// Set but empty, or `-1` (what Ray gives an actor without GPUs): no NVIDIA GPU is used.
    NoNvidia,
}

impl DeviceSelector {
    /// What the value of `CUDA_VISIBLE_DEVICES` asks for; the caller reads the variable (the
    /// library reads none). Its first entry selects the device: `GPU-<uuid>` by UUID (exactly:
    /// the whole UUID), an integer N as CUDA's device N (`CudaIndex`: the Nth NVIDIA adapter in
    /// PCI bus order, CUDA's order under `CUDA_DEVICE_ORDER=PCI_BUS_ID`). Empty or a negative
    /// number: `NoNvidia`. A `MIG-` instance, or anything else, is an error of one line.
    pub fn from_cuda_visible_devices(value: &str) -> Result<CudaVisible> {
        let first = value.split(',').next().unwrap_or("");
        cuda_entry(value, first)
    }

    /// Every GPU `CUDA_VISIBLE_DEVICES` lists, in its order (`--devices all` under it): each
    /// entry as `from_cuda_visible_devices` reads the first. Empty or negative: `None` (no GPU).
    pub fn all_from_cuda_visible_devices(value: &str) -> Result<Option<Vec<DeviceSelector>>> {
        let mut out = Vec::new();
        for entry in value.split(',') {
            match cuda_entry(value, entry)? {
                CudaVisible::Device(d) => out.push(d),
                // CUDA stops at the first invalid entry: what follows is hidden too
                CudaVisible::NoNvidia => break,
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }

    /// The adapter this selects among `adapters` (in the documented order): a name matching
    /// several selects the first of them. No match: one line naming the adapters there are.
    pub fn select<'a>(&self, adapters: &'a [AdapterSummary]) -> Result<&'a AdapterSummary> {
        let found = match self {
            DeviceSelector::Index(i) => adapters.iter().find(|a| a.index == *i),
            DeviceSelector::PciBusId(p) => adapters.iter().find(|a| a.pci() == Some(*p)),
            DeviceSelector::Uuid(u) => adapters.iter().find(|a| a.uuid == Some(*u)),
            DeviceSelector::Name(n) => {
                let n = n.to_lowercase();
                adapters.iter().find(|a| a.name.to_lowercase().contains(&n))
            }
            DeviceSelector::CudaIndex(i) => adapters.iter().filter(|a| a.is_nvidia()).nth(*i),
        };
        found.ok_or_else(|| {
            let what = match self {
                DeviceSelector::Index(i) => format!("index {i}"),
                DeviceSelector::PciBusId(p) => format!("PCI bus id {p}"),
                DeviceSelector::Uuid(_) => format!("UUID {self}"),
                DeviceSelector::Name(n) => format!("`{n}`"),
                DeviceSelector::CudaIndex(i) => format!(
                    "CUDA device {i} (NVIDIA adapters: {})",
                    adapters.iter().filter(|a| a.is_nvidia()).count()
                ),
            };
            let there: Vec<String> = adapters.iter().map(AdapterSummary::short).collect();
            Error::NoAdapter(format!(
                " matching {what} (there are: {})",
                if there.is_empty() {
                    "none".into()
                } else {
                    there.join(", ")
                }
            ))
        })
    }
}

/// Why `choose_adapter` chose what it did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChoiceReason {
    /// The device asked for (`GpuOptions::device` or `adapter`), as text.
    Asked(String),
    /// `CUDA_VISIBLE_DEVICES`'s first entry (the variable's value).
    CudaVisible(String),
    /// No device asked for: the best adapter (discrete first, then integrated, virtual, software).
    Best,
    /// No device asked for and the best adapter is a software rasterizer (its name): the CPU
    /// reference runs (`Backend::auto`).
    OnlySoftware(String),
    /// `CUDA_VISIBLE_DEVICES` empty or negative (its value): no NVIDIA GPU, so the CPU
    /// reference runs (`Backend::auto`).
    NoNvidia(String),
    /// `CUDA_VISIBLE_DEVICES` empty or negative (its value) and a GPU asked for: the best
    /// adapter that is not NVIDIA's.
    BestButNvidia(String),
}

impl fmt::Display for ChoiceReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChoiceReason::Asked(s) => write!(f, "asked for (`{s}`)"),
            ChoiceReason::CudaVisible(v) => write!(f, "CUDA_VISIBLE_DEVICES={v}"),
            ChoiceReason::Best => write!(f, "the best adapter (discrete first)"),
            ChoiceReason::OnlySoftware(n) => write!(
                f,
                "only a software rasterizer (`{n}`): running the CPU reference"
            ),
            ChoiceReason::NoNvidia(v) => write!(
                f,
                "CUDA_VISIBLE_DEVICES={v:?} hides every NVIDIA GPU: running the CPU reference"
            ),
            ChoiceReason::BestButNvidia(v) => write!(
                f,
                "the best adapter but NVIDIA's (CUDA_VISIBLE_DEVICES={v:?} hides them)"
            ),
        }
    }
}

/// What a run opens among `adapters` (in the documented order): the adapter's index (`None`:
/// the CPU reference) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceChoice {
    /// The chosen adapter's index; `None`: the CPU reference runs.
    pub index: Option<usize>,
    /// Why.
    pub reason: ChoiceReason,
}

/// The rule every device is chosen by (`Gpu::new`, `Backend::auto`, `texelflow info`'s mark):
/// the device asked for (`opts.device`, else `opts.adapter` parsed as a `DeviceSelector`);
/// else `CUDA_VISIBLE_DEVICES` (`opts.cuda_visible_devices`); else the best adapter, discrete
/// first, the first in the order among equals. With `auto` (`Backend::auto`), where nothing was
/// asked for (no device, backend or `allow_software`), a software rasterizer as the best is
/// not opened (`index: None`), nor anything when `CUDA_VISIBLE_DEVICES` hides NVIDIA's GPUs.
/// An error: the selector does not parse or matches nothing, or there is no adapter at all
/// where one must be opened.
pub fn choose_adapter(
    adapters: &[AdapterSummary],
    opts: &super::GpuOptions,
    auto: bool,
) -> Result<DeviceChoice> {
    let asked = match (&opts.device, opts.adapter.as_deref().map(str::trim)) {
        (Some(d), _) => Some(d.clone()),
        (None, Some(a)) if !a.is_empty() => Some(a.parse::<DeviceSelector>()?),
        _ => None,
    };
    if let Some(sel) = asked {
        let a = sel.select(adapters)?;
        return Ok(DeviceChoice {
            index: Some(a.index),
            reason: ChoiceReason::Asked(sel.to_string()),
        });
    }
    let explicit = opts.allow_software
        || opts
            .backend
            .as_deref()
            .is_some_and(|b| !b.trim().is_empty());
    let mut candidates: Vec<&AdapterSummary> = adapters.iter().collect();
    let mut hidden = None;
    if let Some(v) = opts.cuda_visible_devices.as_deref() {
        match DeviceSelector::from_cuda_visible_devices(v)? {
            CudaVisible::Device(sel) => {
                let a = sel.select(adapters)?;
                return Ok(DeviceChoice {
                    index: Some(a.index),
                    reason: ChoiceReason::CudaVisible(v.to_string()),
                });
            }
            CudaVisible::NoNvidia => {
                if auto && !explicit {
                    return Ok(DeviceChoice {
                        index: None,
                        reason: ChoiceReason::NoNvidia(v.to_string()),
                    });
                }
                candidates.retain(|a| !a.is_nvidia());
                hidden = Some(v.to_string());
            }
        }
    }
    let best = candidates
        .iter()
        .min_by_key(|a| (a.rank(), a.index))
        .ok_or_else(|| {
            Error::NoAdapter(match (&hidden, opts.backend.as_deref()) {
                (Some(v), _) => format!(" but NVIDIA's, which CUDA_VISIBLE_DEVICES={v:?} hides"),
                (None, Some(b)) => format!(" for backend `{b}`"),
                (None, None) => String::new(),
            })
        })?;
    if auto && !explicit && best.is_software() {
        return Ok(DeviceChoice {
            index: None,
            reason: ChoiceReason::OnlySoftware(best.name.clone()),
        });
    }
    Ok(DeviceChoice {
        index: Some(best.index),
        reason: match hidden {
            Some(v) => ChoiceReason::BestButNvidia(v),
            None => ChoiceReason::Best,
        },
    })
}

/// One entry of `CUDA_VISIBLE_DEVICES` (`value`, whole, for the messages).
fn cuda_entry(value: &str, entry: &str) -> Result<CudaVisible> {
    let first = entry.trim();
    if first.is_empty() {
        return Ok(CudaVisible::NoNvidia);
    }
    if let Some(n) = first.strip_prefix('-') {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(CudaVisible::NoNvidia);
        }
    }
    if first.bytes().all(|b| b.is_ascii_digit()) {
        return first
            .parse()
            .map(|n| CudaVisible::Device(DeviceSelector::CudaIndex(n)))
            .map_err(|_| {
                Error::BadDevice(format!("CUDA_VISIBLE_DEVICES={value}: index too large"))
            });
    }
    let lower = first.to_ascii_lowercase();
    if lower.starts_with("mig-") {
        return Err(Error::BadDevice(format!(
            "CUDA_VISIBLE_DEVICES={value}: MIG instances are not supported (Vulkan cannot open one)"
        )));
    }
    match lower.strip_prefix("gpu-").and_then(parse_uuid) {
        Some(u) => Ok(CudaVisible::Device(DeviceSelector::Uuid(u))),
        None => Err(Error::BadDevice(format!(
            "CUDA_VISIBLE_DEVICES={value}: `{first}` is neither an index nor a whole GPU-<uuid>"
        ))),
    }
}

/// The adapters a device list asks for (`--devices`), as indices into `adapters`, in the
/// list's order: `all` is every hardware GPU (every adapter `CUDA_VISIBLE_DEVICES` lists, where
/// it is set; software rasterizers only with `opts.allow_software` and no hardware GPU), else
/// a comma list of selectors (`0,1`, `GPU-…,GPU-…`, PCI bus ids). An error of one line: a
/// selector that matches nothing, an adapter listed twice, or no GPU at all.
pub fn choose_devices(
    adapters: &[AdapterSummary],
    opts: &super::GpuOptions,
    list: &str,
) -> Result<Vec<usize>> {
    let list = list.trim();
    let mut out: Vec<usize> = Vec::new();
    if list.eq_ignore_ascii_case("all") {
        let visible = match opts.cuda_visible_devices.as_deref() {
            Some(v) => Some((v, DeviceSelector::all_from_cuda_visible_devices(v)?)),
            None => None,
        };
        match visible {
            Some((_, Some(sels))) => {
                for sel in sels {
                    out.push(sel.select(adapters)?.index);
                }
            }
            Some((v, None)) => {
                return Err(Error::NoAdapter(format!(
                    " for --devices all: CUDA_VISIBLE_DEVICES={v:?} hides every GPU"
                )))
            }
            None => {
                out = adapters
                    .iter()
                    .filter(|a| !a.is_software())
                    .map(|a| a.index)
                    .collect();
                if out.is_empty() && opts.allow_software {
                    out = adapters.iter().map(|a| a.index).collect();
                }
            }
        }
        if out.is_empty() {
            let there: Vec<String> = adapters.iter().map(AdapterSummary::short).collect();
            return Err(Error::NoAdapter(format!(
                " for --devices all: no hardware GPU (there are: {}; --gpu counts a software rasterizer)",
                if there.is_empty() {
                    "none".into()
                } else {
                    there.join(", ")
                }
            )));
        }
    } else {
        for part in list.split(',') {
            let sel: DeviceSelector = part.parse()?;
            let i = sel.select(adapters)?.index;
            if out.contains(&i) {
                return Err(Error::BadDevice(format!(
                    "--devices {list}: `{}` is listed twice (adapter {i})",
                    part.trim()
                )));
            }
            out.push(i);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::GpuOptions;

    fn adapter(
        name: &str,
        ty: &str,
        vendor: u32,
        pci: Option<&str>,
        uuid_byte: Option<u8>,
    ) -> AdapterSummary {
        AdapterSummary {
            index: 0,
            name: name.into(),
            backend: "vulkan".into(),
            device_type: ty.into(),
            driver: "test".into(),
            vendor,
            pci_bus_id: pci.map(String::from),
            uuid: uuid_byte.map(|b| [b; 16]),
        }
    }

    /// A made-up host, in a scrambled enumeration order: lavapipe first, four NVIDIA GPUs with
    /// out-of-order PCI ids (two pairs of duplicate names), an AMD one, a GPU without a PCI id.
    fn host() -> Vec<AdapterSummary> {
        order_adapters(vec![
            adapter(
                "llvmpipe (LLVM 19.1.7, 256 bits)",
                "Cpu",
                0x10005,
                None,
                Some(0xee),
            ),
            adapter(
                "NVIDIA H100 80GB HBM3",
                "DiscreteGpu",
                NVIDIA_VENDOR,
                Some("0000:b3:00.0"),
                Some(3),
            ),
            adapter(
                "NVIDIA H100 80GB HBM3",
                "DiscreteGpu",
                NVIDIA_VENDOR,
                Some("0000:1b:00.0"),
                Some(1),
            ),
            adapter(
                "AMD Radeon Pro",
                "DiscreteGpu",
                0x1002,
                Some("0000:40:00.0"),
                Some(9),
            ),
            adapter(
                "NVIDIA A10",
                "DiscreteGpu",
                NVIDIA_VENDOR,
                Some("0000:65:00.0"),
                Some(2),
            ),
            adapter(
                "NVIDIA A10",
                "DiscreteGpu",
                NVIDIA_VENDOR,
                Some("0000:04:00.0"),
                Some(0),
            ),
            adapter("Virtual GPU", "VirtualGpu", 0x1af4, None, None),
        ])
    }

    fn names(list: &[AdapterSummary]) -> Vec<(usize, String, Option<String>)> {
        list.iter()
            .map(|a| (a.index, a.name.clone(), a.pci_bus_id.clone()))
            .collect()
    }

    #[test]
    fn order_is_hardware_by_pci_then_the_rest() {
        let h = host();
        let pcis: Vec<Option<&str>> = h.iter().map(|a| a.pci_bus_id.as_deref()).collect();
        assert_eq!(
            pcis,
            [
                Some("0000:04:00.0"),
                Some("0000:1b:00.0"),
                Some("0000:40:00.0"),
                Some("0000:65:00.0"),
                Some("0000:b3:00.0"),
                None,
                None
            ],
            "{:?}",
            names(&h)
        );
        assert_eq!(h[5].name, "Virtual GPU");
        assert!(h[6].is_software());
        assert!(h.iter().enumerate().all(|(i, a)| a.index == i));
    }

    #[test]
    fn parses_each_form() {
        let p = |s: &str| s.parse::<DeviceSelector>().unwrap();
        assert_eq!(p("1"), DeviceSelector::Index(1));
        assert_eq!(p(" 0 "), DeviceSelector::Index(0));
        let pci = PciBusId {
            domain: 0,
            bus: 0x65,
            device: 0,
            function: 0,
        };
        assert_eq!(p("0000:65:00.0"), DeviceSelector::PciBusId(pci));
        assert_eq!(p("65:00.0"), DeviceSelector::PciBusId(pci));
        assert_eq!(
            p("00000000:65:00.0"),
            DeviceSelector::PciBusId(pci),
            "nvidia-smi's form"
        );
        let b3 = PciBusId { bus: 0xb3, ..pci };
        assert_eq!(p("0000:B3:00.0"), DeviceSelector::PciBusId(b3));
        let u = [
            0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
            0xcd, 0xef,
        ];
        assert_eq!(
            p("GPU-12345678-9abc-def0-0123-456789abcdef"),
            DeviceSelector::Uuid(u)
        );
        assert_eq!(
            p("gpu-12345678-9ABC-def0-0123-456789abcdef"),
            DeviceSelector::Uuid(u)
        );
        assert_eq!(
            p("123456789abcdef00123456789abcdef"),
            DeviceSelector::Uuid(u)
        );
        assert_eq!(
            p("12345678-9abc-def0-0123-456789abcdef"),
            DeviceSelector::Uuid(u)
        );
        assert_eq!(p("H100"), DeviceSelector::Name("H100".into()));
        assert_eq!(p("llvmpipe"), DeviceSelector::Name("llvmpipe".into()));
        // round trips
        for s in [
            "3",
            "0000:65:00.0",
            "GPU-12345678-9abc-def0-0123-456789abcdef",
            "A10",
        ] {
            assert_eq!(p(s).to_string(), s);
        }
    }

    #[test]
    fn pci_bus_ids_and_uuids_print_as_the_tools_do() {
        for (text, printed) in [
            ("0000:65:00.0", "0000:65:00.0"),
            ("00000000:00:06.0", "0000:00:06.0"),
            ("1:B3:1F.7", "0001:b3:1f.7"),
            ("65:00.1", "0000:65:00.1"),
        ] {
            assert_eq!(text.parse::<PciBusId>().unwrap().to_string(), printed);
        }
        for bad in [
            "65:00",
            "65:00.8",
            "65:20.0",
            "0000:100:00.0",
            "x:00.0",
            "0000:65:00.0.1",
        ] {
            assert!(bad.parse::<PciBusId>().is_err(), "{bad}");
        }
        // not a PCI bus id: a name part
        assert_eq!(
            "65:00".parse::<DeviceSelector>().unwrap(),
            DeviceSelector::Name("65:00".into())
        );
        let mut a = adapter("x", "DiscreteGpu", NVIDIA_VENDOR, None, None);
        assert_eq!(a.uuid_string(), None);
        a.uuid = Some([
            0xb6, 0xe7, 0xc9, 0x11, 0x47, 0xbf, 0x4c, 0x6f, 0x0d, 0xe1, 0x83, 0x09, 0x80, 0x3e,
            0x1a, 0x0e,
        ]);
        // as nvidia-smi -L printed it for an H200
        let printed = "GPU-b6e7c911-47bf-4c6f-0de1-8309803e1a0e";
        assert_eq!(a.uuid_string().as_deref(), Some(printed));
        assert_eq!(
            printed.parse::<DeviceSelector>().unwrap(),
            DeviceSelector::Uuid(a.uuid.unwrap())
        );
    }

    #[test]
    fn bad_selectors_are_one_line() {
        for s in [
            "",
            "  ",
            "GPU-1234",
            "MIG-GPU-12345678-9abc-def0-0123-456789abcdef/1/0",
            "99999999999999999999999",
        ] {
            let e = s.parse::<DeviceSelector>().unwrap_err();
            assert!(matches!(e, Error::BadDevice(_)), "{s}: {e:?}");
            assert!(!e.to_string().contains('\n'), "{e}");
        }
    }

    #[test]
    fn selects_by_each_form() {
        let h = host();
        let sel = |s: &str| {
            s.parse::<DeviceSelector>()
                .unwrap()
                .select(&h)
                .map(|a| a.index)
        };
        assert_eq!(sel("0").unwrap(), 0);
        assert_eq!(sel("6").unwrap(), 6);
        assert_eq!(sel("65:00.0").unwrap(), 3);
        assert_eq!(sel("0000:B3:00.0").unwrap(), 4);
        assert_eq!(sel("GPU-01010101-0101-0101-0101-010101010101").unwrap(), 1);
        assert_eq!(sel("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee").unwrap(), 6);
        // a name matching several: the first in the order
        assert_eq!(sel("h100").unwrap(), 1);
        assert_eq!(sel("nvidia").unwrap(), 0);
        assert_eq!(sel("LLVMPIPE").unwrap(), 6);
        // CUDA's indices count NVIDIA's adapters only, in PCI order
        let cuda = |i| {
            DeviceSelector::CudaIndex(i)
                .select(&h)
                .map(|a| a.index)
                .unwrap()
        };
        assert_eq!([cuda(0), cuda(1), cuda(2), cuda(3)], [0, 1, 3, 4]);
        for missing in [
            "7",
            "0000:05:00.0",
            "GPU-77777777-7777-7777-7777-777777777777",
            "radeon 7",
        ] {
            let e = sel(missing).unwrap_err().to_string();
            assert!(
                e.contains("there are: 0 `NVIDIA A10` 0000:04:00.0, 1 `NVIDIA H100"),
                "{e}"
            );
            assert!(e.contains("6 `llvmpipe"), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
        let e = DeviceSelector::CudaIndex(4)
            .select(&h)
            .unwrap_err()
            .to_string();
        assert!(e.contains("CUDA device 4 (NVIDIA adapters: 4)"), "{e}");
        let e = DeviceSelector::Index(0)
            .select(&[])
            .unwrap_err()
            .to_string();
        assert!(e.ends_with("(there are: none)"), "{e}");
    }

    #[test]
    fn cuda_visible_devices() {
        let c = DeviceSelector::from_cuda_visible_devices;
        assert_eq!(
            c("1").unwrap(),
            CudaVisible::Device(DeviceSelector::CudaIndex(1))
        );
        assert_eq!(
            c("2,0").unwrap(),
            CudaVisible::Device(DeviceSelector::CudaIndex(2))
        );
        assert_eq!(
            c("GPU-03030303-0303-0303-0303-030303030303,1").unwrap(),
            CudaVisible::Device(DeviceSelector::Uuid([3; 16]))
        );
        assert_eq!(c("").unwrap(), CudaVisible::NoNvidia);
        assert_eq!(c(" ").unwrap(), CudaVisible::NoNvidia);
        assert_eq!(c("-1").unwrap(), CudaVisible::NoNvidia);
        for bad in [
            "MIG-GPU-03030303-0303-0303-0303-030303030303/1/0",
            "GPU-0303",
            "H100",
            "0000:65:00.0",
        ] {
            let e = c(bad).unwrap_err();
            assert!(matches!(e, Error::BadDevice(_)), "{bad}: {e:?}");
            assert!(e.to_string().starts_with("CUDA_VISIBLE_DEVICES="), "{e}");
        }
        assert!(c("MIG-x")
            .unwrap_err()
            .to_string()
            .contains("MIG instances are not supported"));
    }

    #[test]
    fn device_lists() {
        let h = host();
        let opts = GpuOptions::default();
        let nvidia: Vec<usize> = h
            .iter()
            .filter(|a| a.is_nvidia())
            .map(|a| a.index)
            .collect();
        // all: every hardware GPU, lavapipe left out
        assert_eq!(
            choose_devices(&h, &opts, "all").unwrap(),
            [0, 1, 2, 3, 4, 5]
        );
        assert_eq!(choose_devices(&h, &opts, " ALL ").unwrap().len(), 6);
        // a list keeps its order
        assert_eq!(choose_devices(&h, &opts, "3,1").unwrap(), [3, 1]);
        assert_eq!(
            choose_devices(&h, &opts, "0000:b3:00.0, 1b:00.0").unwrap(),
            [4, 1]
        );
        // under CUDA_VISIBLE_DEVICES, all is what it lists, mapped like CUDA's indices
        let cuda = |v: &str| GpuOptions {
            cuda_visible_devices: Some(v.into()),
            ..Default::default()
        };
        assert_eq!(
            choose_devices(&h, &cuda("2,0"), "all").unwrap(),
            [nvidia[2], nvidia[0]]
        );
        assert_eq!(
            choose_devices(
                &h,
                &cuda("GPU-03030303-0303-0303-0303-030303030303,GPU-01010101-0101-0101-0101-010101010101"),
                "all"
            )
            .unwrap(),
            [4, 1]
        );
        // CUDA stops at the first invalid entry
        assert_eq!(
            choose_devices(&h, &cuda("1,-1,0"), "all").unwrap(),
            [nvidia[1]]
        );
        let e = choose_devices(&h, &cuda(""), "all")
            .unwrap_err()
            .to_string();
        assert!(e.contains("hides every GPU"), "{e}");
        // twice, unknown, empty: one line each
        let e = choose_devices(&h, &opts, "1,0000:1b:00.0").unwrap_err();
        assert!(e.to_string().contains("listed twice"), "{e}");
        assert!(choose_devices(&h, &opts, "9").is_err());
        assert!(choose_devices(&h, &opts, "0,").is_err());
        // a host of lavapipe alone: all is no GPU, unless software is allowed
        let soft: Vec<AdapterSummary> = h.iter().filter(|a| a.is_software()).cloned().collect();
        let soft = order_adapters(soft);
        let e = choose_devices(&soft, &opts, "all").unwrap_err().to_string();
        assert!(
            e.contains("no hardware GPU") && e.contains("llvmpipe"),
            "{e}"
        );
        let allow = GpuOptions {
            allow_software: true,
            ..Default::default()
        };
        assert_eq!(choose_devices(&soft, &allow, "all").unwrap(), [0]);
    }

    #[test]
    fn choice_follows_the_rule() {
        let h = host();
        let choose = |o: GpuOptions, auto: bool| choose_adapter(&h, &o, auto).unwrap();
        // the best: discrete, the first in PCI order
        assert_eq!(choose(GpuOptions::default(), true).index, Some(0));
        // asked for
        let o = GpuOptions {
            adapter: Some("h100".into()),
            ..Default::default()
        };
        assert_eq!(choose(o, true).reason, ChoiceReason::Asked("h100".into()));
        let o = GpuOptions {
            device: Some(DeviceSelector::Index(6)),
            ..Default::default()
        };
        assert_eq!(
            choose(o, true).index,
            Some(6),
            "lavapipe asked for is opened"
        );
        // CUDA_VISIBLE_DEVICES, unless a device is asked for
        let o = GpuOptions {
            cuda_visible_devices: Some("2".into()),
            ..Default::default()
        };
        let c = choose(o, true);
        assert_eq!(
            (c.index, c.reason),
            (Some(3), ChoiceReason::CudaVisible("2".into()))
        );
        let o = GpuOptions {
            cuda_visible_devices: Some("GPU-03030303-0303-0303-0303-030303030303".into()),
            ..Default::default()
        };
        assert_eq!(choose(o, false).index, Some(4));
        let o = GpuOptions {
            cuda_visible_devices: Some("2".into()),
            adapter: Some("1".into()),
            ..Default::default()
        };
        assert_eq!(choose(o, true).index, Some(1));
        // hidden NVIDIA: the CPU reference by default; asked for a GPU, the best other one
        let o = GpuOptions {
            cuda_visible_devices: Some("-1".into()),
            ..Default::default()
        };
        assert_eq!(choose(o.clone(), true).index, None);
        assert_eq!(choose(o, false).index, Some(2), "AMD's");
        let o = GpuOptions {
            cuda_visible_devices: Some("9".into()),
            ..Default::default()
        };
        assert!(choose_adapter(&h, &o, true).is_err());
    }

    #[test]
    fn software_only_when_asked() {
        let lavapipe = order_adapters(vec![adapter(
            "llvmpipe (LLVM 19)",
            "Cpu",
            0x10005,
            None,
            Some(1),
        )]);
        let auto = choose_adapter(&lavapipe, &GpuOptions::default(), true).unwrap();
        assert_eq!(auto.index, None);
        assert_eq!(
            auto.reason.to_string(),
            "only a software rasterizer (`llvmpipe (LLVM 19)`): running the CPU reference"
        );
        // Gpu::new (a GPU asked for), a backend, allow_software or a device: opened
        assert_eq!(
            choose_adapter(&lavapipe, &GpuOptions::default(), false)
                .unwrap()
                .index,
            Some(0)
        );
        for o in [
            GpuOptions {
                backend: Some("vulkan".into()),
                ..Default::default()
            },
            GpuOptions {
                allow_software: true,
                ..Default::default()
            },
            GpuOptions {
                adapter: Some("llvm".into()),
                ..Default::default()
            },
        ] {
            assert_eq!(
                choose_adapter(&lavapipe, &o, true).unwrap().index,
                Some(0),
                "{o:?}"
            );
        }
        // none at all
        assert!(choose_adapter(&[], &GpuOptions::default(), false).is_err());
        let o = GpuOptions {
            cuda_visible_devices: Some("".into()),
            allow_software: true,
            ..Default::default()
        };
        assert_eq!(choose_adapter(&lavapipe, &o, true).unwrap().index, Some(0));
    }
}
