// Loading a URDF into MuJoCo (Debian libmujoco-dev) for the peer programs.
//
// MuJoCo resolves meshdir against the file and reads compiler options from a
// <mujoco> element inside <robot>, so this compiles a temporary copy whose
// <mujoco><compiler .../></mujoco> names the mesh folder (the URDF's folder +
// "/meshes") absolutely and carries the caller's other compiler attributes.
#ifndef KG_PEERS_MUJOCO_URDF_H
#define KG_PEERS_MUJOCO_URDF_H

#include <mujoco/mujoco.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

// NULL with the reason in err when MuJoCo cannot compile it.
static inline mjModel *kg_mj_load_urdf(const std::string &path, const std::string &compiler_attributes, char *err,
                                       int errsz) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str(), dir = path.substr(0, path.rfind('/'));
    char absdir[4096];
    if (!realpath(dir.c_str(), absdir)) {
        snprintf(err, errsz, "no folder %s", dir.c_str());
        return nullptr;
    }
    std::string compiler = "<mujoco><compiler meshdir=\"" + std::string(absdir) + "/meshes\" " + compiler_attributes +
                           "/></mujoco>";
    size_t a = text.find("<mujoco>"), b = text.find("</mujoco>");
    if (a != std::string::npos && b != std::string::npos) text.replace(a, b + 9 - a, compiler);
    else text.insert(text.find('>', text.find("<robot")) + 1, compiler);
    char tmp[] = "/tmp/kg_mujoco_XXXXXX.urdf";
    int fd = mkstemps(tmp, 5);
    if (fd < 0 || write(fd, text.data(), text.size()) != (ssize_t)text.size()) {
        snprintf(err, errsz, "cannot write %s", tmp);
        return nullptr;
    }
    close(fd);
    mjModel *m = mj_loadXML(tmp, nullptr, err, errsz);
    unlink(tmp);
    return m;
}

#endif
